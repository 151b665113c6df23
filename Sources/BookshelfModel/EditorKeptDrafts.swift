import BookCatalog

/// An unsaved draft kept outside the process, so that it outlives a terminal closed under it or
/// a process killed: one account's draft of one book, with the revision it edits. The
/// revision's own fields come with it: if the book moved on meanwhile, they are the base of the
/// three-way merge that the conflict banner shows.
public struct KeptDraft: Equatable, Sendable {
    public let account: String
    /// The revision the draft edits, as it was when the draft was kept.
    public let base: BookRecord
    public let draft: BookDraft

    public var bookID: Int { base.id }

    public init(account: String, base: BookRecord, draft: BookDraft) {
        self.account = account
        self.base = base
        self.draft = draft
    }

    /// A draft read back from where it was kept: nil when the base's fields are not a record
    /// a store could hold (a damaged or foreign file), since a merge against them would be a lie.
    public init?(account: String, bookID: Int, baseRevision: Int, baseFields: BookDraft, draft: BookDraft) {
        guard bookID > 0, baseRevision >= 0, !account.isEmpty, let details = DraftCheck(baseFields).details,
            let title = try? BookValidation.title(baseFields.title),
            let author = try? BookValidation.author(baseFields.author),
            BookDraft(title: title, author: author, details: details) == baseFields
        else { return nil }
        self.init(
            account: account,
            base: BookRecord(id: bookID, title: title, revision: baseRevision, author: author, details: details),
            draft: draft)
    }
}

/// What a keeper found for one account: the drafts it could read, and what it could not read
/// (each already set aside by the keeper, never deleted), in words for the status line.
public struct KeptDraftsFound: Equatable, Sendable {
    public var drafts: [KeptDraft]
    public var problems: [String]

    public init(drafts: [KeptDraft] = [], problems: [String] = []) {
        self.drafts = drafts
        self.problems = problems
    }
}

/// Where the model keeps the open draft between runs, for one catalog (the app's keeps files
/// under `$XDG_STATE_HOME/bookshelf/`). The model decides when to keep, restore and remove;
/// the keeper only stores. Its calls are synchronous: a draft is a few kilobytes, and when a
/// signal ends the process the draft must be on disk before the process exits.
@MainActor
public protocol DraftKeeping: AnyObject {
    /// Keeps `draft`, replacing what was kept for its account and book; all of it or nothing.
    func keep(_ draft: KeptDraft) throws
    /// Forgets what was kept for `account`'s draft of book `bookID`, if anything.
    func remove(account: String, bookID: Int) throws
    /// What is kept for `account` in this catalog, and never a draft of another account.
    func kept(account: String) -> KeptDraftsFound
}

/// The question asked when a session begins and an earlier run kept a draft of this account.
public struct KeptDraftQuestion: Equatable, Sendable {
    public let bookID: Int
    /// The book's title in the revision the draft edits.
    public let title: String
    public let revision: Int

    public var question: String { question(basedOn: "revision \(revision)") }

    /// The question with the revision said as the store says its revisions (`basis`: "revision
    /// 3", or for a Calibre library the time the book was changed).
    public func question(basedOn basis: String) -> String {
        "An unsaved draft of «\(title)» (based on \(basis)) was kept. Restore it?"
    }
}

/// The model's side of keeping: what is on disk for the open editor, and what waits to be offered.
struct DraftKeepingState {
    /// What the keeper holds for the open editor, as last written (or as restored from).
    var onDisk: KeptDraft?
    /// The keepable draft as last looked at, and when: it is written once it has stayed the
    /// same for `BookshelfModel.keepDraftPause`, so typing is never interrupted by a write.
    var seen: KeptDraft?
    var seenAt: Duration?
    /// A write that failed for this very draft: tried again once the draft changes.
    var failed: KeptDraft?
    /// Drafts an earlier run kept for this session's account, asked about one at a time.
    var offers: [KeptDraft] = []
}

extension BookshelfModel {
    /// How long a draft stays unchanged before it is written: a moment after typing pauses.
    public static let keepDraftPause: Duration = .seconds(1)

    /// The open editor's draft, when it holds something a user could lose.
    var keepableDraft: KeptDraft? {
        guard let editor = editorPart.open, let base = editor.base, editor.isDirty, let accountName else { return nil }
        return KeptDraft(account: accountName, base: base, draft: editor.draft)
    }

    var keptDraftQuestion: KeptDraftQuestion? {
        guard let offer = editorPart.keeping.offers.first, editorPart.open == nil, !historyIsOpen, !sessionIsAsking
        else { return nil }
        return KeptDraftQuestion(bookID: offer.bookID, title: offer.base.title, revision: offer.base.revision)
    }

    // MARK: Keeping

    /// Keeps the draft once it has stayed the same for `keepDraftPause` (call it from a timer:
    /// the UI's tick). Time comes from the model's clock, so tests move it by hand.
    public func keepDraftAfterPause() {
        guard let keeper, let wanted = keepableDraft else { return }
        if wanted != editorPart.keeping.seen {
            editorPart.keeping.seen = wanted
            editorPart.keeping.seenAt = clock.now()
            return
        }
        guard wanted != editorPart.keeping.onDisk, wanted != editorPart.keeping.failed,
            let seenAt = editorPart.keeping.seenAt,
            clock.now() - seenAt >= Self.keepDraftPause
        else { return }
        write(wanted, to: keeper)
    }

    /// Keeps the draft at once, whatever the pause: the process is about to end without the
    /// user having said to discard it (a closed terminal, SIGHUP, SIGTERM).
    public func keepDraftNow() {
        guard let keeper, let wanted = keepableDraft, wanted != editorPart.keeping.onDisk else { return }
        write(wanted, to: keeper)
    }

    private func write(_ draft: KeptDraft, to keeper: any DraftKeeping) {
        do {
            try keeper.keep(draft)
            if let old = editorPart.keeping.onDisk, old.account != draft.account || old.bookID != draft.bookID {
                try? keeper.remove(account: old.account, bookID: old.bookID)
            }
            editorPart.keeping.onDisk = draft
            editorPart.keeping.failed = nil
        } catch {
            editorPart.keeping.failed = draft
            message = "Your draft could not be kept on disk: \(Self.message(for: error))"
            changed()
        }
    }

    /// Removes what is kept once the editor no longer holds it (saved, reverted, closed): runs
    /// on every change, so a save or a discard removes the file at once.
    func dropKeptDraftNoLongerOpen() {
        guard let keeper, let kept = editorPart.keeping.onDisk else { return }
        if let open = keepableDraft, open.account == kept.account, open.bookID == kept.bookID { return }
        editorPart.keeping.onDisk = nil
        editorPart.keeping.seen = nil
        do {
            try keeper.remove(account: kept.account, bookID: kept.bookID)
        } catch {
            message = "The kept copy of your draft could not be removed: \(Self.message(for: error))"
        }
    }

    /// The user discarded the draft (quitting after the question): what was kept goes too.
    func forgetKeptDraft() {
        guard let keeper, let kept = editorPart.keeping.onDisk else { return }
        editorPart.keeping = DraftKeepingState(offers: editorPart.keeping.offers)
        try? keeper.remove(account: kept.account, bookID: kept.bookID)
    }

    // MARK: Offering

    /// A session began: what was kept for its account is asked about, one draft at a time.
    /// What was kept for the session before stays where it is (its editor was closed without
    /// the user discarding it, or it is already gone).
    func offerKeptDrafts(to account: String) {
        editorPart.keeping = DraftKeepingState()
        guard let keeper else { return }
        let found = keeper.kept(account: account)
        editorPart.keeping.offers = found.drafts.filter { $0.account == account }.sorted { $0.bookID < $1.bookID }
        if let first = found.problems.first {
            let more = found.problems.count - 1
            message = more > 0 ? "\(first) (and \(more) more)" : first
        }
    }

    /// Yes to the kept-draft question: opens the editor on the book and puts the kept draft in
    /// it. If the book moved on since the draft's revision, the conflict banner shows theirs
    /// and yours against that revision, as after a save that conflicted.
    @discardableResult
    public func restoreKeptDraft() -> Int? {
        guard keptDraftQuestion != nil, let repository, let kept = editorPart.keeping.offers.first else { return nil }
        editorPart.keeping.offers.removeFirst()
        editorPart.open = EditorSession(bookID: kept.bookID)
        message = nil
        defer { changed() }
        return launch(
            .editor,
            Effect(
                .load, { try await repository.book(id: kept.bookID, policy: .refresh) },
                witness: { [self] in observe($0) },
                publish: { [self] loaded, _ in
                    adopt(kept, current: floor(loaded))
                    return nil
                },
                fail: { [self] error, _ in
                    // The kept file stays: the draft is offered again next time.
                    editorPart.open?.loadError = Self.message(for: error)
                    return nil
                }))
    }

    private func adopt(_ kept: KeptDraft, current: BookRecord) {
        guard var editor = editorPart.open, editor.bookID == kept.bookID else { return }
        if current.revision > kept.base.revision {
            editor.base = kept.base
            editor.draft = kept.draft
            let merge = ThreeWayMerge(base: kept.base, theirs: current, mine: kept.draft)
            editor.conflict = ConflictState(theirs: current, fields: merge.conflicts, merged: merge.merged)
        } else {
            editor.rebase(on: current)
            editor.draft = kept.draft
        }
        editorPart.open = editor
        editorPart.keeping.onDisk = kept
        editorPart.keeping.seen = kept
    }

    /// Neither yes nor no (Esc): the draft stays kept, and is asked about at the next start.
    public func askAboutKeptDraftLater() {
        guard keptDraftQuestion != nil else { return }
        editorPart.keeping.offers.removeFirst()
        changed()
    }

    /// No to the kept-draft question: the draft is discarded, its file removed.
    public func declineKeptDraft() {
        guard keptDraftQuestion != nil, let keeper, let kept = editorPart.keeping.offers.first else { return }
        editorPart.keeping.offers.removeFirst()
        message = nil
        do {
            try keeper.remove(account: kept.account, bookID: kept.bookID)
        } catch {
            message = "The kept draft could not be removed: \(Self.message(for: error))"
        }
        changed()
    }
}
