/// The words both modes use for what became of an answer, with the one-line meaning shown
/// on screen and under the `--script` table, so the panel, the transcript and the help agree.
enum FateLegend {
    static let lines = [
        "applied          the naive model put the answer on screen, whatever it was (it applies every answer)",
        "applied, retried the naive save met a conflict and saved again over the other writer's revision",
        "published        BookshelfModel showed the answer: the newest request of the current session",
        "dropped-stale    BookshelfModel discarded it: a newer request of the same kind had taken over",
        "dropped-old-session  BookshelfModel discarded it: the account changed before it answered",
        "failed(conflict) the save met a newer revision; the editor shows the conflict: base, theirs, yours",
        ", WRONG          the oracle found the screen wrong right after this answer, e.g. \"applied, WRONG\":",
        "                 the naive model applied an old answer or another account's rows",
        "never answered   still in flight when the scene ended, or cancelled by the model",
    ]

    /// A short form for the interactive panel, where space is tight: one entry per word, wrapped
    /// to the screen between entries.
    static let compact = [
        "applied: naive shows every answer", "published: shown, the newest of its session",
        "dropped-stale: a newer request took over", "dropped-old-session: another account's",
        "failed(conflict): the conflict banner is shown", ", WRONG: the oracle found the screen wrong after it",
        "answered: taken, not judged yet",
    ]
}
