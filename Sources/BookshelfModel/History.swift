import BookCatalog

/// The history view of one book: its revisions, newest first, as the store recorded them.
public struct HistoryState: Equatable, Sendable {
    public let bookID: Int
    /// Newest first; nil while loading.
    public var revisions: [BookRevision]?
    public var error: String?
    /// The highlighted revision (an index into `revisions`).
    public var selection: Int
    /// Whether this account may restore a revision (editors only).
    public var canRestore: Bool
    /// The revision the user asked to restore, while the question "Restore revision N as a
    /// new revision?" waits for an answer.
    public var restoreQuestion: Int? = nil

    /// What revision `index` changed against the one before it (none for the first known).
    public func change(at index: Int) -> RevisionChange? {
        guard let revisions, revisions.indices.contains(index) else { return nil }
        let older = revisions.indices.contains(index + 1) ? revisions[index + 1].record : nil
        return RevisionChange(from: older, to: revisions[index].record)
    }
}

/// The history part's stored values: the book whose history is open, if any. Only the
/// history's files touch them; the other parts use the history's intents and reads.
struct HistoryPart {
    var open: HistorySession?
}

/// The open history's stored values.
struct HistorySession {
    let bookID: Int
    var revisions: [BookRevision]?
    var error: String?
    var selection = 0
    /// The revision asked about by "Restore revision N as a new revision?".
    var restoreQuestion: Int?
}

extension BookshelfModel {
    var historyState: HistoryState? {
        historyPart.open.map {
            HistoryState(
                bookID: $0.bookID, revisions: $0.revisions, error: $0.error, selection: $0.selection,
                canRestore: accountRole == .editor, restoreQuestion: $0.restoreQuestion)
        }
    }

    /// Opens the history of the selected book (not while editing). Returns the request number.
    @discardableResult
    public func openHistory() -> Int? {
        guard let repository, !editorIsOpen, historyPart.open == nil, let book = selectedBook else { return nil }
        historyPart.open = HistorySession(bookID: book.id)
        defer { changed() }
        return launch(
            .history,
            Effect(
                .history, { try await repository.history(id: book.id) },
                publish: { [self] revisions, _ in
                    historyPart.open?.revisions = revisions
                    historyPart.open?.error = nil
                    return nil
                },
                fail: { [self] error, _ in
                    historyPart.open?.error = Self.message(for: error)
                    return nil
                }))
    }

    /// Whether a book's history is open (the search's list may then be hidden).
    var historyIsOpen: Bool { historyPart.open != nil }

    public func closeHistory() {
        guard historyPart.open != nil else { return }
        historyPart.open = nil
        owners[.history] = nil
        changed()
    }

    public func moveHistorySelection(by delta: Int) {
        guard let count = historyPart.open?.revisions?.count, count > 0, let current = historyPart.open?.selection,
            historyPart.open?.restoreQuestion == nil
        else { return }
        historyPart.open?.selection = min(max(0, current + delta), count - 1)
        changed()
    }

    /// Asks "Restore revision N as a new revision?" about the highlighted revision: a restore
    /// is a save, and nothing is saved before the user says yes (`confirmRestore`). Editors only.
    public func requestRestore() {
        guard let history = historyPart.open, let revisions = history.revisions,
            revisions.indices.contains(history.selection),
            accountRole == .editor
        else { return }
        historyPart.open?.restoreQuestion = revisions[history.selection].revision
        changed()
    }

    /// The user said no: the history stays open where it was.
    public func cancelRestore() {
        guard historyPart.open?.restoreQuestion != nil else { return }
        historyPart.open?.restoreQuestion = nil
        changed()
    }

    /// The user said yes: restores the revision asked about. The editor opens on the book as
    /// it stands now and saves the revision's title and author against it, a new save through
    /// the usual compare-and-set and conflict handling. Nothing is saved if it equals the book now.
    @discardableResult
    public func confirmRestore() -> Int? {
        guard let history = historyPart.open, let asked = history.restoreQuestion, let revisions = history.revisions,
            let chosen = revisions.first(where: { $0.revision == asked })?.record, accountRole == .editor
        else { return nil }
        closeHistory()
        return open(bookID: chosen.id, restoring: BookDraft(chosen))
    }
}
