/// The kinds of source an import reads whose rows carry an id of their own. The raw values are
/// what a store keeps with each imported book (`ImportProvenance`), so they never change once
/// shipped; a new source adds a case.
public enum ImportSourceKind: String, Sendable, Hashable, CaseIterable {
    /// Goodreads' library export: the `Book Id` column.
    case goodreads
    /// A Calibre library: the book's `uuid`.
    case calibre
    /// LibraryThing's export: its `Book Id`.
    case libraryThing = "librarything"
    /// StoryGraph's export.
    case storyGraph = "storygraph"
    /// CSL-JSON: each item's `id`.
    case cslJSON = "csl-json"
    /// BibTeX: each entry's key.
    case bibtex
    /// Bookshelf's own CSV or JSON Lines, matched by ISBN (`import --match isbn`): its rows
    /// have no id, so its books are remembered by the book alone.
    case plainFile = "file"
}

/// Where an imported book came from: the source's kind and the source's own id for the book
/// (Goodreads' `Book Id`, a Calibre `uuid`, LibraryThing's `Book Id`, a CSL `id`, a BibTeX key).
/// A second import of the same source finds the book again by it (issue 60).
public struct BookOrigin: Sendable, Hashable {
    public let source: ImportSourceKind
    public let id: String

    /// The longest id kept. Ids are short keys (a number, a UUID, a citation key); a longer
    /// value is not one, and a store keeps every id in an index.
    public static let maximumIdBytes = 200

    /// The origin, or nil when `id` cannot be one: blank, longer than `maximumIdBytes` in
    /// UTF-8, or holding control characters. Such a book is still imported, without an origin,
    /// as a row of a plain file is.
    public init?(source: ImportSourceKind, id: String) {
        let trimmed = BookValidation.trim(id)
        guard !trimmed.isEmpty, trimmed.utf8.count <= Self.maximumIdBytes,
            !BookValidation.hasControlCharacters(trimmed)
        else { return nil }
        self.source = source
        self.id = trimmed
    }
}

/// A book an import read, with where it came from: nil for a row of a plain CSV or JSON Lines
/// file, which has no id of its own.
public struct SourcedBook: Sendable, Equatable {
    public let book: NewBook
    public let origin: BookOrigin?

    public init(_ book: NewBook, origin: BookOrigin? = nil) {
        self.book = book
        self.origin = origin
    }
}
