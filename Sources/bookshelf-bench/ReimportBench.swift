import BookCatalog
import Foundation
import SQLiteCatalog

/// The re-import part of `bookshelf-bench import` (issue 60): a Goodreads-shaped export of
/// `books` books imported into a new SQLite catalog, then 1% of its books edited here and 1% of
/// its rows changed in the source, then the export imported again; both imports timed as whole
/// processes, with their peak RSS. Target: the re-import of 100,000 books under 20 s, its peak
/// RSS flat in the file's size.
enum ReimportBench {
    static let header =
        "Book Id,Title,Author,Additional Authors,ISBN,ISBN13,Publisher,Year Published,"
        + "Bookshelves,Exclusive Shelf,My Review\n"

    static func run(books: Int, folder: URL, bookshelf: String) async throws {
        let first = folder.appendingPathComponent("goodreads.csv").path
        let second = folder.appendingPathComponent("goodreads-again.csv").path
        try writeExport(to: first, books: books, changed: false)
        try writeExport(to: second, books: books, changed: true)
        let db = folder.appendingPathComponent("reimport.sqlite").path
        defer { try? ImportBench.removeCatalog(db) }
        let imported = try CliBench.spawn(bookshelf, ["import", "--from", "goodreads", first, "--db", db], stdin: nil)
        let edited = try await editLocally(db, books: books)
        let reimported = try CliBench.spawn(
            bookshelf, ["import", "--from", "goodreads", second, "--db", db], stdin: nil)
        try? FileManager.default.removeItem(atPath: first)
        try? FileManager.default.removeItem(atPath: second)
        print("re-import: \(books) Goodreads-shaped books, 1% changed in the source, \(edited) edited here")
        print(ImportBench.describe("first import", imported, rows: books))
        print(ImportBench.describe("re-import   ", reimported, rows: books))
        print(
            String(
                format: "re-import at %.2f of the first import's time; target: under 20 s for 100,000 books",
                reimported.wall.milliseconds / imported.wall.milliseconds))
    }

    /// Book N has Goodreads id N and is the catalog's book N + 1 (a new catalog numbers the
    /// books in file order). `changed`: every hundredth row's title is revised.
    static func writeExport(to path: String, books: Int, changed: Bool) throws {
        guard let file = fopen(path, "w") else { throw BenchError("cannot write \(path)") }
        defer { fclose(file) }
        fputs(header, file)
        var batch = ""
        for n in 0..<books {
            let title = changed && n % 100 == 0 ? "Bench book \(n) (revised)" : "Bench book \(n)"
            batch +=
                "\(n),\(title),Author \(n % 9_973),,,,Publisher \(n % 97),\(1900 + n % 120),"
                + "shelf \(n % 13),read,\"A review of \(n)\"\n"
            if batch.utf8.count > 1 << 20 {
                fputs(batch, file)
                batch = ""
            }
        }
        fputs(batch, file)
    }

    /// Every hundredth book (offset by half, so none is also changed in the source) gets a new
    /// year, saved by an editor as the app saves.
    static func editLocally(_ path: String, books: Int) async throws -> Int {
        let catalog = try SQLiteCatalog.open(path: path, create: false)
        guard let editor = try catalog.accounts().first(where: { $0.role == .editor && $0.scope == "main" }) else {
            throw BenchError("no editor of scope main in \(path)")
        }
        let remote = try catalog.remote(account: editor.name)
        var edited = 0
        for n in stride(from: 50, to: books, by: 100) {
            let book = try await remote.load(id: n + 1)
            let details = book.details
            _ = try await remote.save(
                SaveRequest(
                    id: book.id, title: book.title, author: book.author,
                    details: BookDetails(
                        isbn: details.isbn, year: 1500 + n % 100, publisher: details.publisher, series: details.series,
                        seriesIndex: details.seriesIndex, tags: details.tags, notes: details.notes),
                    expectedRevision: book.revision))
            edited += 1
        }
        return edited
    }
}
