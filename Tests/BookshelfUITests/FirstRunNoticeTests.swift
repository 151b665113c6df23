import BookCatalog
import BookshelfModel
@testable import BookshelfUI
import Testing
import TerminalUI

/// The first run makes a catalog of sample books; the first screen says so, once.
@MainActor
@Suite struct FirstRunNoticeTests {
    static let path = "~/.local/share/bookshelf/catalog.sqlite"

    static func starterNotice(path: String = path) -> Notice {
        FirstRunNotice.notice(
            path: path, books: 3_512, visible: 3_010, scope: "main", accounts: ["alice", "bob", "carol"])
    }

    @Test func theFirstScreenSaysACatalogWasCreatedUntilTheFirstKey() async {
        let harness = AppHarness(columns: 140, rows: 12)
        harness.app.announce(Self.starterNotice())
        await harness.start()
        #expect(
            harness.lines.last
                == " Created \(Self.path) with 3,512 sample books (3,010 in scope main); accounts alice, bob, carol.",
            "\(harness.text)")
        await harness.type("r")
        #expect(!harness.text.contains("Created "), "said once: \(harness.text)")
        await harness.press(.backspace)
        #expect(!harness.text.contains("Created "), "\(harness.text)")
    }

    /// The sample has books in two scopes; the header counts the account's scope only, and
    /// the notice must not seem to contradict it.
    @Test func theNoticeCountsWhatTheHeaderCounts() async {
        let harness = AppHarness(columns: 140, rows: 12)
        harness.app.announce(Self.starterNotice())
        await harness.start()
        #expect(harness.lines.last?.contains("3,010 in scope main") == true, "\(harness.text)")
    }

    /// At 100 columns (and narrower) the whole path is shown; only the details give way.
    @Test(arguments: [100, 80, 60])
    func aNarrowScreenShowsTheWholePath(columns: Int) async {
        let harness = AppHarness(columns: columns, rows: 12)
        harness.app.announce(Self.starterNotice())
        await harness.start()
        let last = harness.lines.last ?? ""
        #expect(last.contains("Created \(Self.path)") && !last.contains("…"), "\(columns) columns: \(last)")
    }

    @Test func oneScopeNeedsNoSecondCount() {
        let notice = FirstRunNotice.notice(path: "x.sqlite", books: 20, visible: 20, scope: "main", accounts: ["alice"])
        #expect(notice.text == "Created x.sqlite with 20 sample books; account alice.")
    }

    @Test func thePathIsShownAsTextNeverAsTerminalCommands() async {
        let harness = AppHarness(columns: 100, rows: 12)
        harness.app.announce(
            FirstRunNotice.notice(
                path: "/tmp/x\u{1B}]0;owned\u{07}/catalog.sqlite", books: 1, visible: 1,
                scope: "main", accounts: ["alice"]))
        await harness.start()
        let last = harness.lines.last ?? ""
        #expect(last.contains("/catalog.sqlite with 1 sample book;"), "\(last)")
        #expect(!last.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(last.debugDescription)")
    }
}
