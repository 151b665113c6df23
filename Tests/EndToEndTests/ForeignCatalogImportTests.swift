import Foundation
import SQLiteCatalog
import TestTags
import Testing

/// `bookshelf import --from goodreads` and `--from calibre` on the committed samples: a
/// Goodreads export written as Goodreads writes it, and a library made by Calibre's own
/// `calibredb` (`Tests/Fixtures`).
@Suite(.tags(.process)) struct ForeignCatalogImportTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    private func exported(_ sandbox: BookshelfProcess, _ db: String) throws -> [String: [String: Any]] {
        let export = try sandbox.run(["export", "--format", "jsonl", "--db", db])
        #expect(export.status == 0, "\(export.errors)")
        var books: [String: [String: Any]] = [:]
        for line in export.output.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            books[try #require(object["title"] as? String)] = object
        }
        return books
    }

    /// A copy of the committed library, so that nothing a test does can reach the fixture.
    private func calibreLibrary(_ sandbox: BookshelfProcess) throws -> String {
        let library = sandbox.path("Calibre Library")
        try FileManager.default.copyItem(
            at: Self.fixtures.appendingPathComponent("calibre-library"), to: URL(fileURLWithPath: library))
        return library
    }

    @Test func goodreadsExportImportsEveryBookAndSaysWhatItSkipped() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = sandbox.path("catalog.sqlite")
        let file = Self.fixtures.appendingPathComponent("goodreads_library_export.csv").path
        let result = try sandbox.run(["import", "--from", "goodreads", file, "--db", db])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "Added 12 books to scope main.\n")
        #expect(result.errors.contains("Read 12 books ("), "\(result.errors)")
        #expect(result.errors.contains("Skipped 9: values of the column \"My Rating\""), "\(result.errors)")
        #expect(result.errors.contains("Skipped 1: ISBN values that break its rule"), "\(result.errors)")
        let books = try exported(sandbox, db)
        let fellowship = try #require(books["The Fellowship of the Ring"])
        #expect(fellowship["isbn"] as? String == "9780618346257")
        #expect(fellowship["series"] as? String == "The Lord of the Rings")
        #expect(fellowship["tags"] as? [String] == ["fantasy", "favorites", "read"])
        #expect(books["ノルウェイの森"]?["author"] as? String == "Haruki Murakami, Jay Rubin, Alfred Birnbaum")
    }

    @Test func booksGoneFromTheSourceAreDeletedOnlyWithRemoveMissingAndHistorySaysSo() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = sandbox.path("catalog.sqlite")
        let header = "Book Id,Title,Author,Exclusive Shelf\n"
        let both = sandbox.path("both.csv"), onlyDune = sandbox.path("dune.csv")
        try (header + "1,Dune,Frank Herbert,read\n2,Emma,Jane Austen,read\n").write(
            toFile: both, atomically: true, encoding: .utf8)
        try (header + "1,Dune,Frank Herbert,read\n").write(toFile: onlyDune, atomically: true, encoding: .utf8)
        #expect(try sandbox.run(["import", both, "--db", db]).status == 0)

        let kept = try sandbox.run(["import", onlyDune, "--db", db])
        #expect(kept.output.hasSuffix("gone from the source 1.\n"), "\(kept.output)")
        #expect(kept.errors.contains("gone from the source: book 2 \"Emma\" (kept)"), "\(kept.errors)")
        let dryRun = try sandbox.run(["import", onlyDune, "--remove-missing", "--dry-run", "--db", db])
        #expect(dryRun.output.hasPrefix("Dry run, nothing changed"), "\(dryRun.output)")
        #expect(dryRun.output.hasSuffix("gone from the source 1 (deleted).\n"), "\(dryRun.output)")
        #expect(dryRun.errors.contains("book 2 \"Emma\" (would be deleted)"), "\(dryRun.errors)")
        #expect(try exported(sandbox, db).keys.sorted() == ["Dune", "Emma"])

        let removed = try sandbox.run(["import", onlyDune, "--remove-missing", "--db", db])
        #expect(removed.status == 0, "\(removed.errors)")
        #expect(removed.errors.contains("book 2 \"Emma\" (deleted)"), "\(removed.errors)")
        #expect(try exported(sandbox, db).keys.sorted() == ["Dune"])
        let history = try sandbox.run(["history", "2", "--db", db])
        #expect(history.status == 0, "\(history.errors)")
        #expect(history.output.hasPrefix("1\t") && history.output.contains("\tEmma\tJane Austen\t"))
        #expect(
            history.errors.contains("book 2 was deleted at ")
                && history.errors.contains("by an import of goodreads (gone from the source); revision 1 was its last"),
            "\(history.errors)")

        let plain = try sandbox.run(["import", "--from", "csv", onlyDune, "--remove-missing", "--db", db])
        #expect(plain.status == 2 && plain.errors.contains("--remove-missing needs books an import remembers"))
    }

    @Test func calibreLibraryImportsEveryBookAndIsNeverWritten() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let library = try calibreLibrary(sandbox)
        let file = library + "/metadata.db"
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let modified = try #require(FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date)
        let folder = try FileManager.default.contentsOfDirectory(atPath: library).sorted()

        let db = sandbox.path("catalog.sqlite")
        let result = try sandbox.run(["import", "--from", "calibre", library, "--db", db])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "Added 8 books to scope main.\n")
        #expect(result.errors.contains("Read 8 books ("), "\(result.errors)")
        // Meditations' 1234567890 and Guards! Guards!' 978-0-552-13419-5 have wrong check digits.
        #expect(result.errors.contains("Skipped 2: ISBN values that break its rule"), "\(result.errors)")
        #expect(result.errors.contains("Skipped 1: the author \"Unknown\""), "\(result.errors)")

        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date == modified)
        #expect(try FileManager.default.contentsOfDirectory(atPath: library).sorted() == folder)

        let books = try exported(sandbox, db)
        #expect(books.count == 8)
        let fellowship = try #require(books["The Fellowship of the Ring"])
        #expect(fellowship["author"] as? String == "J. R. R. Tolkien")
        #expect(fellowship["isbn"] as? String == "9780261103573")
        #expect(fellowship["year"] as? Int == 1954)
        #expect(fellowship["publisher"] as? String == "George Allen & Unwin")
        #expect(fellowship["series"] as? String == "The Lord of the Rings")
        #expect(fellowship["series_index"] as? Double == 1)
        #expect(fellowship["tags"] as? [String] == ["classic", "fantasy"])
        #expect(
            fellowship["notes"] as? String
                == "First of three volumes.\nBought in Oxford & read twice.\nThe map is on the endpapers.")
        // Authors in Calibre's order, joined as Calibre shows them; an ISBN-10 kept as ISBN-13.
        #expect(books["Good Omens"]?["author"] as? String == "Terry Pratchett & Neil Gaiman")
        #expect(books["Good Omens"]?["isbn"] as? String == "9780575048003")
        // Calibre's unknown date and unknown author are none.
        #expect(books["Untitled notebook"]?["year"] == nil)
        #expect(books["Untitled notebook"]?["author"] as? String == "")
        // Outside a series, Calibre's index of 1 is not kept; a fractional one is.
        #expect(books["Good Omens"]?["series_index"] == nil)
        #expect(books["The Sea and Little Fishes"]?["series_index"] as? Double == 23.5)
        #expect(books["The Sea and Little Fishes"]?["notes"] as? String == "A novella.\nPrinted in Legends.")
        #expect(
            books["Cien años de soledad"]?["notes"] as? String
                == "Una novela de Macondo — siete generaciones de los Buendía.\nCafé <sin> azúcar \"ok\"")
        #expect(
            books["The Name of the Rose"]?["notes"] as? String
                == "Line one\nLine two, after a blank paragraph.\n- a list item\n- another")
        #expect(books["Meditations"]?["isbn"] == nil && books["Guards! Guards!"]?["isbn"] == nil)
        #expect(books["Guards! Guards!"]?["series_index"] as? Double == 8)
    }

    @Test func aFolderWithoutALibraryIsRefusedAndNothingIsMade() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = sandbox.path("catalog.sqlite")
        let result = try sandbox.run(["import", "--from", "calibre", sandbox.directory.path, "--db", db])
        #expect(result.status != 0)
        #expect(result.errors.contains("no Calibre library"), "\(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test func anUnknownSourceIsAUsageError() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let result = try sandbox.run(["import", "--from", "delicious", "x.csv", "--db", sandbox.path("c.sqlite")])
        #expect(result.status == 2)
        #expect(
            result.errors.contains(
                "--from must be one of auto, csv, jsonl, goodreads, storygraph, librarything, csl-json, bibtex, calibre"
            ),
            "\(result.errors)")
    }

    /// Each sample of the places readers keep books, imported with no --from: recognised, said,
    /// and every book added.
    @Test(arguments: [
        ("librarything_export.tsv", "LibraryThing's export (tab-separated), ISO-8859-1", 6),
        ("librarything_export.json", "LibraryThing's export (JSON), UTF-8", 2),
        ("storygraph_export.csv", "the StoryGraph's export (CSV), UTF-8", 3),
        ("csl_references.json", "CSL-JSON, UTF-8", 3), ("bibtex_references.bib", "BibTeX, UTF-8", 4),
        ("goodreads_library_export.csv", "Goodreads' library export (CSV), UTF-8", 12),
    ])
    func eachSourceIsRecognisedAndSaid(_ name: String, _ said: String, _ count: Int) throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let file = Self.fixtures.appendingPathComponent(name).path
        let result = try sandbox.run(["import", file, "--db", sandbox.path("catalog.sqlite")])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "Added \(count) books to scope main.\n")
        #expect(result.errors.contains("bookshelf import: reading \(file) as \(said)\n"), "\(result.errors)")
        #expect(result.errors.contains("Read \(count) books ("), "\(result.errors)")
    }

    /// A catalog exported as CSL-JSON or BibTeX and imported into a new catalog has the same
    /// books, every field (the Goodreads sample's books hold nothing either format loses).
    @Test(arguments: ["csl-json", "bibtex"])
    func aCitationExportImportsBackIntoTheSameBooks(_ format: String) throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let first = sandbox.path("first.sqlite"), second = sandbox.path("second.sqlite")
        let file = Self.fixtures.appendingPathComponent("goodreads_library_export.csv").path
        #expect(try sandbox.run(["import", "--from", "goodreads", file, "--db", first]).status == 0)
        let export = try sandbox.run(["export", "--format", format, "--db", first])
        #expect(export.status == 0, "\(export.errors)")
        let written = sandbox.path("references")
        try Data(export.output.utf8).write(to: URL(fileURLWithPath: written))
        let back = try sandbox.run(["import", "--from", format, written, "--db", second])
        #expect(back.status == 0, "\(back.errors)")
        #expect(back.output == "Added 12 books to scope main.\n")
        let original = try sandbox.run(["export", "--format", "jsonl", "--db", first]).output
        let again = try sandbox.run(["export", "--format", "jsonl", "--db", second]).output
        #expect(again == original)
    }
}
