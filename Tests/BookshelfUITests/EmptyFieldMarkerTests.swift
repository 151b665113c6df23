import BookCatalog
import BookshelfModel
@testable import BookshelfUI
import Testing
import TerminalUI

/// A field with nothing in it says so, in a marker's style, wherever a version is shown:
/// a blank after "Theirs:" reads as a drawing fault, not as "they cleared it".
@MainActor
@Suite struct EmptyFieldMarkerTests {
    /// Alice changes Mommsen's author to `mine` while bob saves `theirs`; alice then saves.
    private func authorConflict(mine: String, theirs: String) async throws -> AppHarness {
        let harness = AppHarness(columns: 80, rows: 18)
        await harness.start()
        await harness.type("mommsen")
        await harness.press(.enter)
        await harness.press(.tab, .ctrl("a"), .ctrl("k"))
        await harness.type(mine)
        _ = try await harness.otherEditor()
            .save(SaveRequest(id: 2, title: "History of Rome", author: theirs, expectedRevision: 1))
        await harness.press(.enter)
        #expect(harness.text.contains("Both changed the author:"), "\(harness.text)")
        return harness
    }

    private func expectMarker(after label: String, in harness: AppHarness) throws {
        let screen = harness.screen
        let row = try #require(screen.row(containing: label), "\(harness.text)")
        #expect(
            harness.lines[row] == " \(label)".padding(toLength: 9, withPad: " ", startingAt: 0) + "(empty)",
            "\(harness.lines[row])")
        let column = try #require(screen.column(of: "(empty)", row: row))
        for x in column..<(column + 7) {
            #expect(screen[x, row].style == Theme.emptyValue, "a marker, not text, at column \(x)")
        }
        #expect(Theme.emptyValue != .plain && Theme.emptyValue != Theme.difference)
    }

    @Test func theirClearedAuthorShowsAsEmptyInTheBanner() async throws {
        let harness = try await authorConflict(mine: "T. Mommsen", theirs: "")
        try expectMarker(after: "Theirs:", in: harness)
        #expect(harness.text.contains(" Yours:  T. Mommsen"), "\(harness.text)")
        #expect(harness.text.contains(" Base:   Theodor Mommsen"), "\(harness.text)")
    }

    @Test func yourClearedAuthorShowsAsEmptyInTheBanner() async throws {
        let harness = try await authorConflict(mine: "", theirs: "T. Mommsen")
        try expectMarker(after: "Yours:", in: harness)
        #expect(harness.text.contains(" Theirs: T. Mommsen"), "\(harness.text)")
    }

    @Test func aClearedAuthorShowsAsEmptyInTheHistory() async throws {
        let harness = AppHarness(columns: 140, rows: 20)
        _ = try await harness.otherEditor()
            .save(SaveRequest(id: 2, title: "History of Rome", author: "", expectedRevision: 1))
        await harness.start()
        await harness.type("history of rome")
        let index = try #require(harness.model.state.search.rows.firstIndex { $0.id == 2 })
        for _ in 0..<index { await harness.press(.down) }
        #expect(harness.model.state.search.selectedBook?.id == 2, "\(harness.text)")
        await harness.press(.function(3))
        let screen = harness.screen
        let heading = try #require(screen.row(containing: "Revision 2 ·"), "\(harness.text)")
        let author = heading + 2
        #expect(harness.lines[author].hasSuffix("Author    (empty)"), "\(harness.lines[author])")
        let column = try #require(screen.column(of: "(empty)", row: author))
        #expect(screen[column, author].style == Theme.emptyValue)
        // The revision before still shows its author as text.
        let older = try #require(screen.row(containing: "Revision 1 ·"))
        #expect(harness.lines[older + 2].hasSuffix("Author    Theodor Mommsen"), "\(harness.lines[older + 2])")
    }
}
