import TerminalUI
import Testing

/// Editing text made of clusters that are more than one scalar: the cursor moves by whole
/// clusters, and its column is the display width of what is before it ("Search: " is 8).
@Suite @MainActor struct ClusterCursorTests {
    @Test func theCursorMovesByWholeClustersAndSitsAtTheirDisplayWidth() async {
        let harness = AppHarness()
        await harness.start()
        await harness.type("a🇯🇵कि👨\u{200D}👩\u{200D}👧1\u{FE0F}\u{20E3}e\u{301}")
        // a 1 + flag 2 + कि 2 + family 2 + keycap 2 + é 1
        #expect(harness.screen.cursor == Position(x: 8 + 10, y: 1))
        await harness.press(.left)
        #expect(harness.screen.cursor == Position(x: 8 + 9, y: 1), "over é")
        await harness.press(.left, .left)
        #expect(harness.screen.cursor == Position(x: 8 + 5, y: 1), "over the keycap and the family")
        await harness.press(.backspace)
        #expect(harness.model.state.search.query == "a🇯🇵👨\u{200D}👩\u{200D}👧1\u{FE0F}\u{20E3}e\u{301}", "कि goes whole")
        #expect(harness.screen.cursor == Position(x: 8 + 3, y: 1))
        await harness.press(.backspace)
        #expect(
            harness.model.state.search.query == "a👨\u{200D}👩\u{200D}👧1\u{FE0F}\u{20E3}e\u{301}", "the flag goes whole")
        #expect(harness.screen.cursor == Position(x: 9, y: 1))
        #expect(harness.screen[9, 1].symbol == "👨\u{200D}👩\u{200D}👧")
    }
}
