import BookCatalog

/// A catalog for the bulk-save suites: `count` books ("Book 1"…, revision 1, no details) and
/// an editor of their scope.
struct PostgresBulkFixture {
    let catalog: PostgresTestCatalog
    let editor: Account
    let books: [BookRecord]

    init(count: Int) async throws {
        catalog = try await PostgresTestCatalog.make()
        editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        books = try await catalog.addBooks((1...count).map { NewBook(title: "Book \($0)") }, scope: "main")
    }
}
