import BookCatalog
import Foundation
import SQLiteCatalog
import Testing

/// The SQLite adapter on a fresh file in a fresh temporary directory.
struct SQLiteFixture: ContractFixture {
    func makeCatalog(books: [SeedBook], accounts: [Account]) async throws -> any ContractCatalog {
        let directory = try TemporaryDirectory()
        let catalog = try SQLiteCatalog.open(path: directory.path("catalog.sqlite"), create: true)
        for account in accounts { try catalog.addAccount(account) }
        let stored = try books.map { try catalog.addBook(NewBook(title: $0.title, author: $0.author), scope: $0.scope) }
        return SQLiteContractCatalog(directory: directory, catalog: catalog, books: stored)
    }
}

struct SQLiteContractCatalog: ContractCatalog {
    let directory: TemporaryDirectory
    let catalog: SQLiteCatalog
    let books: [BookRecord]

    func remote(for account: String) async throws -> any ContractRemote {
        try catalog.remote(account: account)
    }
}

@Suite struct SQLiteContractTests {
    @Test(arguments: ContractCheck.all)
    func contract(_ check: ContractCheck) async throws {
        try await check.run(SQLiteFixture())
    }

    @Test(arguments: ContractCheck.otherFields)
    func otherFields(_ check: ContractCheck) async throws {
        try await check.run(SQLiteFixture())
    }
}

/// Issue 40's search of a book's other fields, checked here against the SQLite store and the
/// in-memory reference (`MemoryContractTests`) alike.
extension ContractCheck {
    static let otherFields: [ContractCheck] = [
        ContractCheck(
            "a word in the series, the publisher or a tag matches after the title's and the author's matches; notes never; an ISBN query lists its books first"
        ) { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let (cafe, empire, history, essays) = (library.book(1), library.book(2), library.book(4), library.book(6))
            for (book, details) in [
                (
                    cafe,
                    BookDetails(
                        publisher: "Hi Fi", series: "Roman Nights", tags: ["Gibbon", "Zeppelin"], notes: "Marvellous")
                ),
                (essays, BookDetails(publisher: "Fi", series: "Hi")),
                (history, BookDetails(isbn: "9780131103627")),
            ] {
                _ = try await editor.save(
                    SaveRequest(id: book.id, title: book.title, details: details, expectedRevision: 1))
            }
            func titles(_ text: String) async throws -> [String] {
                let page = try await editor.search(SearchQuery(text: text))
                #expect(page.total == page.records.count, "\(text)")
                return page.records.map(\.title)
            }
            #expect(try await titles("zeppelin") == [cafe.title])
            #expect(try await titles("marvellous") == [])
            // By title (rank 1), then by series (rank 3).
            #expect(try await titles("roman") == [empire.title, cafe.title])
            // By author (rank 2) before by tag (rank 3), though "Café Society" sorts first by title.
            #expect(try await titles("gibbon") == [empire.title, cafe.title])
            // A word of several tokens lies within one field: Essays' "Hi" and "Fi" are two fields.
            #expect(try await titles("hi-fi") == [cafe.title])
            #expect(try await titles("hi fi essays") == [essays.title])
            // An ISBN-10 or ISBN-13 query lists the book with that ISBN first; its text matches none.
            #expect(try await titles("0-13-110362-8") == [history.title])
            #expect(try await titles("9780131103627") == [history.title])
            #expect(try await titles("9780131103626") == [])
        }
    ]
}
