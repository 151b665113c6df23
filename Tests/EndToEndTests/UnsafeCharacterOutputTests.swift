import BookCatalog
import BookshelfTestSupport
import CSQLite
import Foundation
import SQLiteCatalog
import TestTags
import Testing
import TerminalUI
@testable import bookshelf

/// `bookshelf search` prints stored titles and authors; whatever reached the store, nothing
/// in its output may act on the terminal.
@Suite("Unsafe characters in command-line output", .tags(.process))
struct UnsafeCharacterOutputTests {
    @Test("tab-separated and JSON lines carry no unsafe character, and JSON keeps the exact value")
    func searchOutputIsHarmless() throws {
        for (name, scalar) in UnsafeCharacters.samples {
            let character = String(scalar)
            let record = BookRecord(id: 7, title: "Title\(character)End", revision: 2, author: "Auth\(character)or")
            let tabbed = SearchCommand.tabSeparatedLine(record)
            #expect(!tabbed.unicodeScalars.contains(scalar), "\(name) in the tab-separated line")
            #expect(
                tabbed.split(separator: "\t", omittingEmptySubsequences: false).count == 4,
                "\(name): \(tabbed.debugDescription)")
            let json = SearchCommand.jsonLine(record)
            #expect(!json.unicodeScalars.contains(scalar), "\(name) in the JSON line")
            let decoded = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
            #expect(decoded?["title"] as? String == record.title, "\(name): the JSON value is exact")
            #expect(decoded?["author"] as? String == record.author, "\(name): the JSON value is exact")
        }
    }

    @Test("validation, the canvas and the command line agree on every Unicode scalar")
    func oneDefinitionOfWhatMayReachATerminal() {
        var disagreements: [String] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(scalar)
            let refused = BookValidation.isControl(scalar)
            let replacedOnScreen = sanitize(text) != text
            let replacedInOutput = TerminalText.sanitized(text) != text
            if refused != replacedOnScreen || refused != replacedInOutput {
                disagreements.append(String(format: "U+%04X", value))
            }
        }
        #expect(disagreements.isEmpty, "validation, canvas and command line differ on \(disagreements)")
    }

    @Test("titles and authors written into the catalog behind its back come out of `bookshelf search` harmless")
    func storedBehindItsBackThenSearched() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = sandbox.path("catalog.sqlite")
        let samples = UnsafeCharacters.samples
        do {
            let catalog = try SQLiteCatalog.open(path: db, create: true)
            try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
            _ = try catalog.insertBooks(
                samples.indices.map { NewBook(title: "Plain \($0)", author: "Writer") }, scope: "main")
        }
        // Another program writes what validation would refuse; the search terms stay as they were.
        var handle: OpaquePointer?
        #expect(sqlite3_open(db, &handle) == SQLITE_OK)
        for (index, sample) in samples.enumerated() {
            let sql =
                "UPDATE books SET title = 'Plain ' || char(\(sample.scalar.value)) || ' \(index)', "
                + "author = 'Wri' || char(\(sample.scalar.value)) || 'ter' WHERE title = 'Plain \(index)'"
            #expect(
                sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK,
                "\(sample.name): \(String(cString: sqlite3_errmsg(handle)))")
        }
        sqlite3_close(handle)

        for arguments in [["search", "plain", "--db", db], ["search", "plain", "--json", "--db", db]] {
            let result = try sandbox.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.errors)")
            #expect(result.outputLines.count == samples.count, "every book is listed: \(result.output)")
            for sample in samples {
                #expect(
                    !result.output.unicodeScalars.contains(sample.scalar),
                    "\(sample.name) reached the terminal: \(arguments)")
                #expect(
                    !result.errors.unicodeScalars.contains(sample.scalar), "\(sample.name) in the summary: \(arguments)"
                )
            }
        }
    }
}
