import BookCatalog

/// The draft as it is being edited: each field's text with its cursor (notes are one
/// `LineEditor` over several lines). The model holds the one copy; the UI draws it and edits it
/// through `editDraft` and `pasteIntoDraft`.
public struct DraftLines: Equatable, Sendable {
    private var lines: [EditorField: LineEditor] = [:]

    public init() {}

    public subscript(field: EditorField) -> LineEditor {
        get { lines[field] ?? LineEditor() }
        set { lines[field] = newValue }
    }

    public var title: LineEditor {
        get { self[.title] }
        set { self[.title] = newValue }
    }

    public var author: LineEditor {
        get { self[.author] }
        set { self[.author] = newValue }
    }

    /// The fields' texts. A text put here (a load, a reload, a merge, a save the store
    /// normalised) moves its field's cursor to the end; a text that stays keeps its cursor.
    public var draft: BookDraft {
        get {
            var draft = BookDraft(title: "", author: "")
            for field in EditorField.allCases { draft[field] = self[field].text }
            return draft
        }
        set {
            for field in EditorField.allCases { self[field].replaceText(newValue[field]) }
        }
    }

    /// The most characters a paste may bring a field to: its rule's length (a paste past it
    /// is cut and says so), and for the fields whose rule is a shape, room for any valid text.
    public static func limit(of field: EditorField) -> Int {
        switch field {
        case .title: BookValidation.maximumTitleLength
        case .author: BookValidation.maximumAuthorLength
        case .isbn: 40
        case .year: 10
        case .publisher: BookValidation.maximumPublisherLength
        case .series: BookValidation.maximumSeriesLength
        case .seriesIndex: 20
        case .tags: BookValidation.maximumTagCount * (BookValidation.maximumTagLength + 2)
        case .notes: BookValidation.maximumNotesLength
        }
    }
}

extension BookshelfModel {
    // MARK: The editor's focused field

    /// A readline edit of the editor's focused field, once the book has loaded. A cursor
    /// moved alone is kept; new text goes as `setDraft` says, and during a conflict it means
    /// "keep editing my version".
    public func editDraft(_ edit: LineEditor.Edit) {
        changeFocusedField { $0.apply(edit) }
    }

    /// Inserts pasted text at the focused field's cursor, keeping the field within `limit`
    /// characters. Returns whether the text had to be cut.
    @discardableResult
    public func pasteIntoDraft(_ text: String, limit: Int) -> Bool {
        var cut = false
        changeFocusedField { line in
            let inserted = line.insert(text, limit: limit)
            cut = inserted.cut
            return inserted.changed
        }
        return cut
    }

    private func changeFocusedField(_ change: (inout LineEditor) -> Bool) {
        guard let editor = editorPart.open, editor.base != nil else { return }
        let field = editor.focus
        var line = editor.lines[field]
        guard change(&line) else {
            guard line != editor.lines[field] else { return }
            editorPart.open?.lines[field] = line
            changed()
            return
        }
        if editor.conflict != nil { resolveConflict(.keepEditing) }
        setDraft(field, to: line)
    }
}
