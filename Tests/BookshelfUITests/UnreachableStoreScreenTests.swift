import BookCatalog
import BookshelfModel
@testable import BookshelfUI
import Testing
import TerminalUI

/// The server goes away while the user edits and types nothing (issue 43, item 7): the
/// next freshness check says so in the header and on the status line, without a key, and
/// the screen says it no longer once the catalog answers again.
@MainActor
@Suite struct UnreachableStoreScreenTests {
    @Test func aLostServerShowsInTheHeaderAndStatusLineUntilItAnswersAgain() async {
        let harness = AppHarness(columns: 100, rows: 14)
        await harness.start()
        await harness.type("mommsen")
        await harness.press(.enter)
        await harness.type(", abridged")
        let connected = harness.lines

        harness.catalog.isReachable = false
        harness.model.checkForChanges()  // what the app's freshness timer does once a second
        await harness.settle()
        let header = harness.lines[0], status = harness.lines[13]
        #expect(header == " Bookshelf  alice (editor) · disconnected, retrying  Memory test", "\(harness.text)")
        #expect(status.hasPrefix(" Cannot reach the catalog: still trying. Nothing here is lost."), "\(harness.text)")
        // The draft is where it was.
        #expect(harness.lines[4].hasSuffix("│ Title     History of Rome, abridged"), "\(harness.text)")

        harness.catalog.isReachable = true
        harness.model.checkForChanges()
        await harness.settle()
        #expect(harness.lines == connected, "\(harness.text)")
    }
}
