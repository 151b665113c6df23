@testable import BookCatalog
@testable import BookshelfModel
@testable import BookshelfUI
import TerminalUI
import Testing

/// Saves the catalog lost (issue 56, item 5): each lost book's row is marked "!" until the user
/// has opened the list (F6), which names every one, newest first; opening it takes the marks away.
@MainActor
@Suite struct LostSavesScreenTests {
    @Test func lostRowsAreMarkedUntilTheListIsOpenedAndTheListNamesEach() async throws {
        let harness = AppHarness(columns: 100, rows: 16)
        await harness.start()
        let rows = harness.model.state.search.rows
        try #require(rows.count >= 3)
        // What the repository hands the model after a failover lost the saves of two shown books.
        for record in rows.prefix(2) {
            harness.model.lostSaveList.add(
                LostSave(
                    saved: BookRecord(
                        id: record.id, title: record.title + " Revised", revision: record.revision + 1,
                        author: record.author),
                    current: record))
        }
        let listed = harness.lines
        let rowLines = listed.filter { line in rows.contains { line.contains($0.title) } }
        #expect(rowLines.count >= 3, "\(harness.text)")
        #expect(rowLines.prefix(2).allSatisfy { $0.hasPrefix("!") }, "\(harness.text)")
        #expect(rowLines.dropFirst(2).allSatisfy { $0.hasPrefix(" ") }, "\(harness.text)")

        await harness.press(.function(6))
        let panel = harness.text
        #expect(panel.contains("Lost saves, newest first"), "\(panel)")
        for record in rows.prefix(2) {
            #expect(
                panel.contains(
                    "“\(record.title) Revised” (book #\(record.id)): revision \(record.revision + 1) was lost"),
                "\(panel)")
        }
        await harness.press(.escape)
        #expect(harness.app.ui.overlay == nil)
        #expect(!harness.lines.contains { $0.hasPrefix("!") }, "the marks go once the list was seen: \(harness.text)")
    }
}
