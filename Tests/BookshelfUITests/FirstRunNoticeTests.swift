import BookCatalog
import BookshelfModel
@testable import BookshelfUI
import Testing
import TerminalUI

/// The first run makes a catalog of sample books; the first screen says so, once.
@MainActor
@Suite struct FirstRunNoticeTests {
    @Test func theFirstScreenSaysACatalogWasCreatedUntilTheFirstKey() async {
        let harness = AppHarness(columns: 120, rows: 12)
        let notice = FirstRunNotice.text(path: "~/.local/share/bookshelf/catalog.sqlite", books: 3_510,
                                         accounts: ["alice", "bob", "carol"])
        #expect(notice == "Created ~/.local/share/bookshelf/catalog.sqlite with 3,510 sample books; accounts alice, bob, carol.")
        harness.app.announce(notice)
        await harness.start()
        #expect(harness.lines.last == " " + notice, "\(harness.text)")
        await harness.type("r")
        #expect(!harness.text.contains("Created "), "said once: \(harness.text)")
        await harness.press(.backspace)
        #expect(!harness.text.contains("Created "), "\(harness.text)")
    }

    @Test func thePathIsShownAsTextNeverAsTerminalCommands() async {
        let harness = AppHarness(columns: 100, rows: 12)
        harness.app.announce(FirstRunNotice.text(path: "/tmp/x\u{1B}]0;owned\u{07}/catalog.sqlite", books: 1, accounts: ["alice"]))
        await harness.start()
        let last = harness.lines.last ?? ""
        #expect(last.contains("/catalog.sqlite with 1 sample book;"), "\(last)")
        #expect(!last.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(last.debugDescription)")
    }
}
