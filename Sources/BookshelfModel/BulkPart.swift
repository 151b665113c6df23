import BookCatalog
import TerminalSafeText

/// The bulk editor's part (issue 61): the books the user marked, the editor of one change for
/// all of them, and the batch that saves it. Its values change only in its own intents and in
/// its effects' handlers; what it needs of the other parts (the selected book, the typed query)
/// the UI passes in, and what it asks of them (rows refreshed after a batch, a conflict opened
/// in the editor) goes through their intents.
struct BulkPart {
    var marks = BookMarks()
    /// Why the last "mark every match" failed.
    var markError: String?
    /// What marking every match said when it answered ("Marked 120 books.").
    var markNote: String?
    var editor: BulkEditorSession?
    var batch: BulkBatch?
    /// The marking of every match that opens the bulk editor when it answers: the editor was
    /// asked for (F8) while it was on its way, and the user meant the books it marks.
    var openEditorWhenMarked: PublicationIdentity?

    /// A new session begins: the marks, the editor and the batch's progress and outcome were the
    /// old session's. A batch still running stops before its next book; what it committed stays
    /// committed and recorded in its batch (its answer, of the old session, publishes nowhere).
    mutating func endSession() {
        batch?.stop.stop()
        self = BulkPart()
    }
}

/// The marked books, by id, in the order they were marked (a book marked twice is unmarked).
struct BookMarks: Equatable {
    private(set) var ids: [Int] = []
    private(set) var set: Set<Int> = []

    var count: Int { ids.count }

    mutating func toggle(_ id: Int) {
        if set.remove(id) != nil {
            ids.removeAll { $0 == id }
        } else if ids.count < BulkEdit.maximumBooks {
            set.insert(id)
            ids.append(id)
        }
    }

    /// Marks `more` (those not marked yet), up to the most one batch takes; returns how many it added.
    mutating func add(_ more: [Int]) -> Int {
        let before = ids.count
        for id in more where ids.count < BulkEdit.maximumBooks && set.insert(id).inserted { ids.append(id) }
        return ids.count - before
    }
}

/// What the screen shows of the bulk editor's part.
public struct BulkState: Equatable, Sendable {
    /// The marked books' ids: their rows carry a mark.
    public var marked: Set<Int> = []
    /// "Mark every match" is on its way.
    public var isMarkingMatches = false
    /// The bulk editor opens once the marking on its way answers.
    public var opensEditorWhenMarked = false
    public var markError: String?
    public var markNote: String?
    /// The bulk editor, when open.
    public var editor: BulkEditorState?
    /// The batch running, or the last one this session ran.
    public var batch: BatchState?

    public var markedCount: Int { marked.count }

    public init() {}
}

extension BookshelfModel {
    var bulkState: BulkState {
        var state = BulkState()
        state.marked = bulkPart.marks.set
        state.isMarkingMatches = isPending(.bulkMarks)
        state.opensEditorWhenMarked =
            bulkPart.openEditorWhenMarked != nil && bulkPart.openEditorWhenMarked == owners[.bulkMarks]
        state.markError = bulkPart.markError
        state.markNote = bulkPart.markNote
        state.editor = bulkPart.editor?.state
        state.batch = bulkPart.batch?.state
        return state
    }

    // MARK: Marks

    /// Marks the book `id` (the selected row's, which the UI passes), or unmarks it if marked.
    public func toggleMark(_ id: Int?) {
        guard let id, repository != nil else { return }
        bulkPart.marks.toggle(id)
        bulkPart.markNote = nil
        changed()
    }

    /// Marks every book `query` matches: all pages, not only the rows loaded. The books are
    /// asked of the repository through the runner, so an answer of an old session never marks.
    /// Returns the request number.
    @discardableResult
    public func markEveryMatch(of query: String) -> Int? {
        guard let repository else { return nil }
        bulkPart.markError = nil
        bulkPart.markNote = nil
        defer { changed() }
        return launch(
            .bulkMarks,
            Effect(
                .markMatches, { try await repository.everyMatch(of: query).map(\.id) },
                publish: { [self] ids, ticket in
                    let added = bulkPart.marks.add(ids)
                    let books = ids.count == 1 ? "book" : "books"
                    bulkPart.markNote =
                        added == ids.count
                        ? "Marked the \(NumberText.grouped(ids.count)) \(books) the search matches."
                        : "Marked the \(NumberText.grouped(ids.count)) \(books) the search matches "
                            + "(\(NumberText.grouped(ids.count - added)) already marked)."
                    if bulkPart.openEditorWhenMarked == ticket.identity {
                        bulkPart.openEditorWhenMarked = nil
                        openBulkEditor()
                    }
                    return nil
                },
                fail: { [self] error, ticket in
                    bulkPart.markError = "Could not mark every match: \(Self.message(for: error))"
                    if bulkPart.openEditorWhenMarked == ticket.identity { bulkPart.openEditorWhenMarked = nil }
                    return nil
                }))
    }

    /// Unmarks every book.
    public func clearMarks() {
        bulkPart.marks = BookMarks()
        bulkPart.markNote = nil
        bulkPart.markError = nil
        changed()
    }
}
