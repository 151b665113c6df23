/// A book about to enter a catalog (import, sample data): no id or revision yet.
public struct NewBook: Sendable, Equatable {
    public let title: String
    public let author: String

    public init(title: String, author: String = "") {
        self.title = title
        self.author = author
    }

    /// The book with title and author as a store will keep them, or the reason it cannot.
    public func validated() throws(BookFailure) -> NewBook {
        NewBook(title: try BookValidation.title(title), author: try BookValidation.author(author))
    }
}
