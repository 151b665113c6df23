import BookCatalog

// A save the store acknowledged and then lost (`LostSave`: a failover to a standby that had not
// replayed it). The user is told which book and which revision, the rows stop showing the lost
// revision, and the text is kept: in the editor if it is open on the book, otherwise until the
// book is next opened. Saving it again is the usual compare-and-set against what the store has.

extension BookshelfModel {
    /// Takes the saves the repository found lost since the last answer, and tells the user.
    /// Called for every answer of the current session, whichever request it answered.
    func noticeLostSaves() {
        guard let found = repository?.lostSaves.take(), !found.isEmpty else { return }
        for lost in found { keep(lost) }
        // One status line names one book: several are counted there, and named in the list.
        if editorPart.lostSaveList.unseen.count > 1 {
            message = Self.lostSavesMessage(count: editorPart.lostSaveList.unseen.count)
        }
    }

    /// Every save the store lost this session (the state's `lostSaves`).
    var lostSaveList: LostSaveList {
        get { editorPart.lostSaveList }
        set { editorPart.lostSaveList = newValue }
    }

    /// The user opened the list of lost saves: each is seen, and its row loses its mark.
    public func lostSavesSeen() {
        editorPart.lostSaveList.markSeen()
        changed()
    }

    private func keep(_ lost: LostSave) {
        editorPart.lostSaveList.add(lost)
        lowerRows(to: lost.current)
        let outcome = SaveOutcome.lost(revision: lost.saved.revision, current: lost.current.revision)
        if var editor = editorPart.open, editor.bookID == lost.saved.id, editor.base != nil {
            // The draft stays as it is: the lost text, or what the user typed on since.
            editor.base = lost.current
            editor.knownNewer = nil
            editor.outcome = outcome
            editorPart.open = editor
            message = nil
        } else {
            editorPart.keptLostSaves[lost.saved.id] = lost
            message = Self.lostSaveMessage(lost, revisions: revisions)
        }
    }

    /// A lost save's text kept for book `id`, for the editor that opens it: it becomes the draft
    /// (the lost save is taken out, so it is offered once).
    func takeKeptLostSave(of id: Int) -> LostSave? {
        editorPart.keptLostSaves.removeValue(forKey: id)
    }

    /// One status line, so it must fit one: what was lost and what to do come before
    /// anything else, and a long title is shortened (the editor shows it whole, and the
    /// revision the catalog is back at, once the book is opened).
    static func lostSaveMessage(_ lost: LostSave, revisions: RevisionStyle = .counter) -> String {
        "Your save of “\(shortened(lost.saved.title))” (\(revisions.text(lost.saved.revision))) was lost. "
            + "Open the book: your text is kept."
    }

    /// Several lost saves the user has not seen in the list yet.
    static func lostSavesMessage(count: Int) -> String {
        "\(count) of your saves were lost (a failover?): F6 lists them. Open each book: your text is kept."
    }

    /// With it, the message fits a status line of 120 columns whole (revisions of up to five digits).
    static let longestTitleInMessage = 40

    private static func shortened(_ title: String) -> String {
        guard title.count > longestTitleInMessage else { return title }
        var kept = title.prefix(longestTitleInMessage - 1)
        while kept.last?.isWhitespace == true { kept.removeLast() }
        return kept + "…"
    }
}

/// Every save the store lost this session, oldest first (the newest `capacity`), and the books
/// whose loss the user has not yet seen in their list: until then their rows carry a mark, so no
/// row shows a book that went back a revision without saying so.
public struct LostSaveList: Equatable, Sendable {
    public static let capacity = 200
    public private(set) var entries: [LostSave] = []
    public private(set) var unseen: Set<Int> = []

    public init() {}

    mutating func add(_ lost: LostSave) {
        entries.append(lost)
        if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
        unseen.insert(lost.saved.id)
    }

    mutating func markSeen() { unseen.removeAll() }
}
