import BookCatalog

/// Which change the bulk editor makes: set one field, add or remove tags, or replace text in a field.
public enum BulkChangeKind: Equatable, Sendable, Hashable, CaseIterable {
    case setAuthor, setPublisher, setYear, setSeries, setSeriesIndex, setNotes
    case addTags, removeTags
    case replace(BulkChange.TextField)

    public static let allCases: [BulkChangeKind] =
        [.setAuthor, .setPublisher, .setYear, .setSeries, .setSeriesIndex, .setNotes, .addTags, .removeTags]
        + BulkChange.TextField.allCases.map(BulkChangeKind.replace)

    /// "Set the author", "Add tags", "Replace text in the title".
    public var label: String {
        switch self {
        case .setAuthor: "Set the author"
        case .setPublisher: "Set the publisher"
        case .setYear: "Set the year"
        case .setSeries: "Set the series"
        case .setSeriesIndex: "Set the series index"
        case .setNotes: "Set the notes"
        case .addTags: "Add tags"
        case .removeTags: "Remove tags"
        case let .replace(field): "Replace text in the \(field.field.label.lowercased())"
        }
    }

    /// Whether the change takes a second text: what replaces the text found.
    public var takesReplacement: Bool {
        if case .replace = self { true } else { false }
    }

    /// The change this choice makes of the texts typed, each value through its field's rule.
    func change(value: String, replacement: String) throws -> BulkChange {
        let edit: BulkChange.Edit
        switch self {
        case .setAuthor: edit = .set(.author(value))
        case .setPublisher: edit = .set(.publisher(value))
        case .setYear: edit = .set(.year(try BookValidation.year(text: value)))
        case .setSeries: edit = .set(.series(value))
        case .setSeriesIndex: edit = .set(.seriesIndex(try BookValidation.seriesIndex(text: value)))
        case .setNotes: edit = .set(.notes(value))
        case .addTags: edit = .addTags(try Self.someTags(value))
        case .removeTags: edit = .removeTags(try Self.someTags(value))
        case let .replace(field): edit = .replace(field, text: value, replacement: replacement)
        }
        return try BulkChange([edit])
    }

    private static func someTags(_ text: String) throws -> [String] {
        let tags = try BookValidation.tags(text: text)
        guard !tags.isEmpty else { throw BulkChangeProblem.nothingToChange }
        return tags
    }
}

/// Which text of the bulk editor has the cursor.
public enum BulkEditorFocus: Equatable, Sendable {
    case value
    /// What replaces the text found (a replacement only).
    case replacement
}

/// What a bulk change would do to the marked books as read, before anything is saved: the same
/// rule the batch applies (`BulkEdit.preview`, a dry run).
public struct BulkPreview: Equatable, Sendable {
    public var willChange = 0
    public var unchanged = 0
    /// Books the change would break a rule of (too many tags, say), and marked books that could
    /// not be read (gone, or out of this account's scope).
    public var willFail = 0
    /// The first books it would change: each changed field before and after.
    public var sample: [BulkSample] = []

    /// How many books a sample shows.
    public static let sampleSize = 5
}

/// One book of a preview's sample.
public struct BulkSample: Equatable, Sendable {
    public let id: Int
    public let title: String
    public let field: BookField
    public let before: String
    public let after: String
}

/// The bulk editor as the screen shows it.
public struct BulkEditorState: Equatable, Sendable {
    public var kind: BulkChangeKind = .setAuthor
    /// The value to set, the tags to add or remove, or the text to replace.
    public var value = LineEditor()
    public var replacement = LineEditor()
    public var focus: BulkEditorFocus = .value
    /// Save every book in one transaction, or none (ask 4); off: a partial outcome, per book.
    public var allOrNothing = false
    /// How many books are marked for this edit.
    public var markedBooks: Int
    /// The marked books are being read (what the edit compares and sets against).
    public var isReading = true
    /// Why the marked books could not be read.
    public var readError: String?
    /// Why the change as typed cannot be made.
    public var problem: String?
    /// What it would do, once the books are read and the change can be made.
    public var preview: BulkPreview?

    public var canRun: Bool { !isReading && readError == nil && problem == nil && (preview?.willChange ?? 0) > 0 }
}

/// The open bulk editor: its screen state, and the marked books as read for it.
struct BulkEditorSession {
    var state: BulkEditorState
    /// The marked books as read, in the order marked; nil until read.
    var books: [BookRecord]?
    /// Marked books that could not be read: each fails, with its reason.
    var unreadable: [BookOutcome] = []

    /// The change as typed, or why it cannot be made.
    var change: Result<BulkChange, any Error> {
        Result { try state.kind.change(value: state.value.text, replacement: state.replacement.text) }
    }

    /// Works out the problem and the preview again after the change or the books changed.
    mutating func reconsider() {
        state.problem = nil
        state.preview = nil
        let change: BulkChange
        switch self.change {
        case let .success(made): change = made
        case let .failure(error):
            // An empty value is a change not typed yet, not a mistake.
            if !state.value.text.isEmpty || state.kind == .setSeriesIndex || state.kind == .setYear {
                state.problem = Self.words(error)
            }
            return
        }
        guard let books else { return }
        var preview = BulkPreview()
        preview.willFail = unreadable.count
        let byID = Dictionary(uniqueKeysWithValues: books.map { ($0.id, $0) })
        for outcome in BulkEdit.preview(change, of: books) {
            switch outcome.outcome {
            case let .saved(after):
                preview.willChange += 1
                guard preview.sample.count < BulkPreview.sampleSize, let before = byID[outcome.id] else { continue }
                for field in change.fields where preview.sample.count < BulkPreview.sampleSize {
                    let old = BookDraft(before)[field], new = BookDraft(after)[field]
                    if old != new {
                        preview.sample.append(
                            BulkSample(id: before.id, title: before.title, field: field, before: old, after: new))
                    }
                }
            case .unchanged: preview.unchanged += 1
            default: preview.willFail += 1
            }
        }
        state.preview = preview
    }

    static func words(_ error: any Error) -> String {
        if let problem = error as? BulkChangeProblem { return problem.description }
        if let failure = error as? BookFailure { return failure.description }
        return String(describing: error)
    }
}

extension BookshelfModel {
    /// Opens the bulk editor over the marked books and reads them: each is saved against the
    /// revision read here. Nothing opens without marks, or while a batch runs (one at a time).
    /// While every match is being marked, the editor opens when the marking answers (the user
    /// meant those books), and nothing opens now. Returns the request number of the read.
    @discardableResult
    public func openBulkEditor() -> Int? {
        if let marking = owners[.bulkMarks], isPending(.bulkMarks) {
            bulkPart.openEditorWhenMarked = marking
            changed()
            return nil
        }
        guard let repository, bulkPart.marks.count > 0, bulkPart.batch?.isRunning != true else { return nil }
        let ids = bulkPart.marks.ids
        bulkPart.editor = BulkEditorSession(state: BulkEditorState(markedBooks: ids.count))
        bulkPart.editor?.state.allOrNothing = false
        defer { changed() }
        return launch(
            .bulkRead,
            Effect(
                .bulkRead,
                {
                    // A read per chunk of books where the store reads many at once, as a batch saves them.
                    var books: [BookRecord] = [], unreadable: [BookOutcome] = []
                    for start in stride(from: 0, to: ids.count, by: BulkEdit.booksPerTransaction) {
                        try Task.checkCancellation()
                        let chunk = Array(ids[start..<min(start + BulkEdit.booksPerTransaction, ids.count)])
                        let read = try await repository.books(ids: chunk)
                        for id in chunk {
                            switch read[id] ?? .failure(.missing) {
                            case let .success(book): books.append(book)
                            // This book cannot be had; a store that did not answer fails the whole read.
                            case let .failure(failure) where failure == .missing || failure == .invalidResponse:
                                unreadable.append(BookOutcome(id: id, outcome: .failed(failure)))
                            case let .failure(failure): throw failure
                            }
                        }
                    }
                    return (books: books, unreadable: unreadable)
                },
                publish: { [self] read, _ in
                    guard bulkPart.editor != nil else { return nil }
                    bulkPart.editor?.books = read.books
                    bulkPart.editor?.unreadable = read.unreadable
                    bulkPart.editor?.state.isReading = false
                    bulkPart.editor?.reconsider()
                    return nil
                },
                fail: { [self] error, _ in
                    bulkPart.editor?.state.isReading = false
                    bulkPart.editor?.state.readError = Self.message(for: error)
                    return nil
                }))
    }

    /// Closes the bulk editor; the marks stay.
    public func closeBulkEditor() {
        bulkPart.editor = nil
        changed()
    }

    /// Chooses the next (or previous) change in the list.
    public func chooseBulkChange(by delta: Int) {
        guard let kind = bulkPart.editor?.state.kind else { return }
        let all = BulkChangeKind.allCases
        let index = all.firstIndex(of: kind)! + delta
        let chosen = all[min(max(0, index), all.count - 1)]
        bulkPart.editor?.state.kind = chosen
        if !chosen.takesReplacement { bulkPart.editor?.state.focus = .value }
        bulkPart.editor?.reconsider()
        changed()
    }

    /// Moves the cursor between the text to find and its replacement (a replacement only).
    public func switchBulkFocus() {
        guard let editor = bulkPart.editor?.state, editor.kind.takesReplacement else { return }
        bulkPart.editor?.state.focus = editor.focus == .value ? .replacement : .value
        changed()
    }

    /// Turns all or nothing on or off.
    public func toggleAllOrNothing() {
        bulkPart.editor?.state.allOrNothing.toggle()
        changed()
    }

    /// A readline edit of the bulk editor's focused text.
    public func editBulkText(_ edit: LineEditor.Edit) {
        guard bulkPart.editor != nil else { return }
        var changedText = false
        if bulkPart.editor?.state.focus == .replacement {
            changedText = bulkPart.editor?.state.replacement.apply(edit) ?? false
        } else {
            changedText = bulkPart.editor?.state.value.apply(edit) ?? false
        }
        if changedText { bulkPart.editor?.reconsider() }
        changed()
    }

    /// Pasted text into the bulk editor's focused text, cut at `limit`; returns whether it was cut.
    @discardableResult
    public func pasteIntoBulkText(_ text: String, limit: Int) -> Bool {
        guard bulkPart.editor != nil else { return false }
        let result: (changed: Bool, cut: Bool)?
        if bulkPart.editor?.state.focus == .replacement {
            result = bulkPart.editor?.state.replacement.insert(text, limit: limit)
        } else {
            result = bulkPart.editor?.state.value.insert(text, limit: limit)
        }
        if result?.changed == true { bulkPart.editor?.reconsider() }
        changed()
        return result?.cut ?? false
    }
}
