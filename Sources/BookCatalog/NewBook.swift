/// A book about to enter a catalog (import, sample data): no id or revision yet.
public struct NewBook: Sendable, Equatable {
    public let title: String
    public let author: String
    /// The bytes to store instead, when the title or author is not valid UTF-8 (`import
    /// --restore` of text another program stored); `title` and `author` then show each bad
    /// byte as U+FFFD. Nil for every book of valid text.
    public let storedBytes: StoredBytes?
    /// ISBN, year, publisher, series, tags and notes; empty for none.
    public let details: BookDetails

    public init(title: String, author: String = "", details: BookDetails = .empty) {
        self.title = title
        self.author = author
        self.details = details
        storedBytes = nil
    }

    /// A book of exactly these bytes; `storedBytes` is set only when one is not valid UTF-8.
    public init(storedTitle: [UInt8], storedAuthor: [UInt8], details: BookDetails = .empty) {
        self.details = details
        let title = String(validating: storedTitle, as: UTF8.self),
            author = String(validating: storedAuthor, as: UTF8.self)
        self.title = title ?? String(decoding: storedTitle, as: UTF8.self)
        self.author = author ?? String(decoding: storedAuthor, as: UTF8.self)
        storedBytes = title == nil || author == nil ? StoredBytes(title: storedTitle, author: storedAuthor) : nil
    }

    /// The book with title and author as a store will keep them, or the reason it cannot.
    /// Text that is not valid UTF-8 is never valid.
    public func validated() throws(BookFailure) -> NewBook {
        if let storedBytes {
            throw String(validating: storedBytes.title, as: UTF8.self) == nil ? .invalidTitle : .invalidAuthor
        }
        return NewBook(
            title: try BookValidation.title(title), author: try BookValidation.author(author),
            details: try details.validated())
    }
}
