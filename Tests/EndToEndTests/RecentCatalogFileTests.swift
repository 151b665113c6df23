import BookshelfModel
import Foundation
import Testing

@testable import bookshelf

#if canImport(Glibc)
    import Glibc
#endif

/// The list of catalogs opened recently (issue 62, ask 7): newest first, bounded, private,
/// atomic, and read as a file anyone could have written (damaged, huge, not a file at all);
/// a PostgreSQL entry never holds a password.
@Suite struct RecentCatalogFileTests {
    let folder: String
    var file: RecentCatalogFile { RecentCatalogFile(folder: folder + "/state/bookshelf") }

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("recent-\(UUID().uuidString)").path
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }

    static func sqlite(_ name: String) -> RecentCatalogFile.Entry {
        RecentCatalogFile.Entry(kind: .sqlite, location: "/books/\(name).sqlite")
    }

    func names() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: file.folder)) ?? []).sorted()
    }

    @Test func theNewestComesFirstOnceAndTheListIsBounded() throws {
        defer { remove() }
        #expect(file.entries().isEmpty, "no file yet")
        try file.record(Self.sqlite("a"))
        try file.record(Self.sqlite("b"))
        try file.record(Self.sqlite("a"))
        #expect(file.entries() == [Self.sqlite("a"), Self.sqlite("b")], "opened again, it moves to the top once")
        for index in 0..<(RecentCatalogFile.maximumEntries + 5) { try file.record(Self.sqlite("n\(index)")) }
        let kept = file.entries()
        #expect(kept.count == RecentCatalogFile.maximumEntries)
        #expect(kept.first == Self.sqlite("n\(RecentCatalogFile.maximumEntries + 4)"))
        #expect(!kept.contains(Self.sqlite("a")), "the oldest went")
        // Private, and no temporary file is left behind.
        var status = stat()
        #expect(stat(file.path, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(stat(file.folder, &status) == 0 && status.st_mode & 0o777 == 0o700)
        #expect(names() == [RecentCatalogFile.name])
    }

    @Test func aLocationTooLongIsNotRecordedAndTheFileStaysWithinItsSize() throws {
        defer { remove() }
        try file.record(RecentCatalogFile.Entry(kind: .sqlite, location: "/" + String(repeating: "x", count: 5000)))
        #expect(file.entries().isEmpty)
        // Ten of the longest locations kept fit, as the bound promises.
        for index in 0..<RecentCatalogFile.maximumEntries {
            let long = "/\(index)" + String(repeating: "y", count: RecentCatalogFile.maximumLocationBytes - 3)
            try file.record(RecentCatalogFile.Entry(kind: .calibre, location: long))
        }
        #expect(file.entries().count == RecentCatalogFile.maximumEntries)
        var status = stat()
        #expect(stat(file.path, &status) == 0 && Int(status.st_size) <= RecentCatalogFile.maximumBytes)
    }

    /// A damaged, oversized or foreign file reads as an empty list (never a crash); the next
    /// record sets it aside whole, under another name, and starts a new list.
    @Test(arguments: [
        "damaged", "oversized", "unknown version", "not a regular file", "unknown kinds and bad entries",
    ])
    func anUnreadableFileIsIgnoredAndKept(_ damage: String) throws {
        defer { remove() }
        try FileManager.default.createDirectory(atPath: file.folder, withIntermediateDirectories: true)
        var original: Data?
        switch damage {
        case "damaged": original = Data("{\"version\":1,\"catalogs\":[{\"kind\":\"sq".utf8)
        case "oversized":
            let entry = #"{"kind":"sqlite","location":"/a.sqlite"},"#
            original = Data(
                (#"{"version":1,"catalogs":["#
                    + String(repeating: entry, count: RecentCatalogFile.maximumBytes / entry.count + 1)
                    + #"{"kind":"sqlite","location":"/b.sqlite"}]}"#).utf8)
        case "unknown version": original = Data(#"{"version":7,"catalogs":[]}"#.utf8)
        case "not a regular file": #expect(mkfifo(file.path, 0o600) == 0)
        default:
            // Entries of a kind not known, empty, or with a NUL are skipped; the rest is read.
            let text =
                #"{"version":1,"catalogs":[{"kind":"floppy","location":"/a"},{"kind":"sqlite","location":""},"#
                + #"{"kind":"sqlite","location":"/x\u0000y"},{"kind":"sqlite","location":"/books/ok.sqlite"}]}"#
            try Data(text.utf8).write(to: URL(fileURLWithPath: file.path))
            #expect(file.entries() == [Self.sqlite("ok")])
            return
        }
        if let original { try original.write(to: URL(fileURLWithPath: file.path)) }
        #expect(file.entries().isEmpty)
        try file.record(Self.sqlite("new"))
        #expect(file.entries() == [Self.sqlite("new")])
        let aside = file.path + ".damaged"
        if let original {
            #expect(FileManager.default.contents(atPath: aside) == original, "set aside whole")
        } else {
            var status = stat()
            #expect(lstat(aside, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        }
    }

    /// The connection string is written down without its password, whichever form gave it.
    @Test(arguments: [
        "postgresql://alice:s3cret@db.example:5433/books?sslmode=require",
        "host=db.example port=5433 dbname=books user=alice password=s3cret sslmode=require",
        "postgresql://alice@db.example:5433/books?password=s3cret&sslmode=require",
    ])
    func aPostgreSQLEntryNeverHoldsAPassword(_ connection: String) throws {
        defer { remove() }
        let catalog = try #require(RecentCatalogs.postgres(connection))
        #expect(!catalog.location.contains("s3cret"))
        #expect(catalog.shown == "dbname=books host=db.example port=5433")
        #expect(catalog.location.contains("sslmode='require'"), "every other option is kept")
        #expect(RecentCatalogs.postgres(catalog.location) == catalog, "it opens the same catalog again")
        try file.record(try #require(RecentCatalogs.entry(of: catalog)))
        let written = try String(contentsOfFile: file.path, encoding: .utf8)
        #expect(!written.contains("s3cret") && written.contains("db.example"))
    }

    /// The switcher's view of the list: the header's names, missing files said as such.
    @Test func theSwitcherShowsEachAsTheHeaderDoesAndSaysWhatIsGone() throws {
        defer { remove() }
        let present = folder + "/present.sqlite"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: present, contents: Data("x".utf8)))
        let entries = [
            RecentCatalogFile.Entry(kind: .sqlite, location: present),
            RecentCatalogFile.Entry(kind: .sqlite, location: folder + "/gone.sqlite"),
            RecentCatalogFile.Entry(kind: .calibre, location: folder + "/No Library"),
        ]
        let catalogs = entries.compactMap(RecentCatalogs.catalog(of:))
        #expect(catalogs.map(\.isMissing) == [false, true, true])
        #expect(catalogs.map(\.kind) == [.sqlite, .sqlite, .calibre])
        #expect(catalogs[0].shown == InteractiveCommand.displayPath(present))
    }
}
