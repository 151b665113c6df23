import Foundation
import TestTags
import Testing

/// `bookshelf import` reads its file as it adds the books, in one transaction: a field too
/// long to keep is named with its line as soon as it is met, every bad line is still named,
/// and a bad line anywhere, even after a megabyte of good ones, adds nothing.
@Suite(.tags(.process)) struct StreamingImportTests {
    /// 60,000 good books (about 1.6 MB: more than one read), a 3 MB title on line 3, and a
    /// title with a bell at the end.
    static func badFile() -> String {
        var csv =
            "title,author\nFirst,Someone\n\"" + String(repeating: "long, \"\"quoted\"\"\n", count: 200_000)
            + "\",Writer\n"
        for number in 0..<60_000 { csv += "Good book \(number),Author \(number)\n" }
        return csv + "Bell \u{7},Last\n"
    }

    @Test func everyBadLineIsNamedWithItsLineAndNothingIsAdded() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let before = try sandbox.run(["search", "", "--db", db, "--limit", "1000"]).output
        let file = try sandbox.write("books.csv", Self.badFile())
        let result = try sandbox.run(["import", file, "--db", db])
        #expect(result.status == 1, "\(result.errors)")
        // The long field's record spans 200,001 lines; the bell's line comes after it and the good books.
        let bellLine = 3 + 200_000 + 1 + 60_000
        #expect(
            result.errors.contains("\(file):3: a field is longer than 1,048,576 bytes"), "\(result.errors.prefix(600))")
        #expect(result.errors.contains("\(file):\(bellLine): title contains a control character (U+0007)"))
        #expect(result.errors.contains("nothing imported: 2 bad lines"), "\(result.errors.suffix(300))")
        #expect(result.output.isEmpty)
        #expect(try sandbox.run(["search", "", "--db", db, "--limit", "1000"]).output == before)
        #expect(try sandbox.run(["search", "good book", "--db", db]).status == 1, "none of the good books was kept")
    }

    @Test func aNewCatalogIsNotLeftBehindAndStandardInputStreamsToo() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = sandbox.path("new.sqlite")
        let refused = try sandbox.run(["import", "-", "--db", db], input: Self.badFile())
        #expect(refused.status == 1)
        #expect(refused.errors.contains("standard input") || refused.errors.contains("-:3: a field is longer"))
        #expect(!FileManager.default.fileExists(atPath: db), "a catalog made for the import is removed again")
        var good = "title,author\n"
        for number in 0..<60_000 { good += "Good book \(number),Author \(number)\n" }
        let added = try sandbox.run(["import", "-", "--db", db], input: good)
        #expect(added.status == 0, "\(added.errors)")
        #expect(added.output == "Added 60,000 books to scope main.\n")
        #expect(try sandbox.run(["search", "good book 59999", "--db", db]).outputLines.count == 1)
    }
}
