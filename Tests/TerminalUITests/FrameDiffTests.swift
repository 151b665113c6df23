import Testing
@testable import TerminalUI

@Suite("Frame diff")
struct FrameDiffTests {
    func canvas(_ rows: [String], width: Int = 6) -> Canvas {
        var canvas = Canvas(width: width, height: rows.count)
        for (y, row) in rows.enumerated() { canvas.draw(row, x: 0, y: y) }
        return canvas
    }

    @Test("Identical frames emit nothing")
    func identical() {
        let frame = canvas(["abc", "漢字"])
        #expect(FrameDiff.updates(from: frame, to: frame).isEmpty)
    }

    @Test("Only the changed cell is emitted")
    func oneCell() {
        let before = canvas(["abcdef", "ghijkl"])
        var after = before
        after.draw("X", x: 3, y: 1)
        let updates = FrameDiff.updates(from: before, to: after)
        #expect(updates.map(\.position) == [Position(x: 3, y: 1)])
        #expect(updates.first?.cell.symbol == "X")
    }

    @Test("A style change alone is a change")
    func styleOnly() {
        let before = canvas(["abc"])
        var after = before
        after.setStyle(.bold, in: Rect(x: 1, y: 0, width: 1, height: 1))
        #expect(FrameDiff.updates(from: before, to: after).map(\.position) == [Position(x: 1, y: 0)])
    }

    @Test("No previous frame, or another size, redraws every cell but continuations")
    func fullRedraw() {
        let frame = canvas(["ab漢", "xyz"])
        #expect(FrameDiff.updates(from: nil, to: frame).count == 12 - 1)
        let smaller = canvas(["ab"], width: 3)
        #expect(FrameDiff.updates(from: smaller, to: frame).count == 11)
    }

    @Test("A wide glyph replacing narrow ones is one update at its lead")
    func wideReplacesNarrow() {
        let updates = FrameDiff.updates(from: canvas(["abcd"]), to: canvas(["a漢d"]))
        #expect(updates.map(\.position) == [Position(x: 1, y: 0)])
    }

    @Test("Narrow glyphs replacing a wide one update both of its cells")
    func narrowReplacesWide() {
        let updates = FrameDiff.updates(from: canvas(["a漢d"]), to: canvas(["abcd"]))
        #expect(updates.map(\.position) == [Position(x: 1, y: 0), Position(x: 2, y: 0)])
    }

    /// The contract: applying the updates to a screen showing the old frame yields the
    /// new one, and no unchanged cell is sent. Checked on many seeded random frame
    /// pairs mixing ASCII, wide glyphs, combining marks and styles.
    @Test("Applying the updates reproduces the new frame (seeded random frames)")
    func roundTrip() {
        var random = SeededRandom(seed: 0x5EED)
        let pieces = ["a", "b", " ", "漢", "字", "😀", "e\u{301}", "ノ", "xy"]
        let styles: [Style] = [.plain, .bold, Style(foreground: .red), .reverse]
        func randomFrame() -> Canvas {
            var frame = Canvas(width: 9, height: 3)
            for _ in 0..<12 {
                let text = (0..<random.next(upTo: 4)).map { _ in pieces[random.next(upTo: pieces.count)] }.joined()
                frame.draw(
                    text, x: random.next(upTo: 10) - 1, y: random.next(upTo: 3),
                    style: styles[random.next(upTo: styles.count)])
            }
            return frame
        }
        var cases = 0
        for _ in 0..<300 {
            let before = randomFrame(), after = randomFrame()
            var backend = MemoryBackend(width: 9, height: 3)
            backend.present(before)
            backend.present(after)
            #expect(backend.screen == after)
            for update in backend.lastUpdates {
                #expect(before[update.position.x, update.position.y] != update.cell, "unchanged cell sent")
            }
            cases += 1
        }
        print("frame diff round trips checked: \(cases)")
    }
}

/// A small deterministic generator (SplitMix64) so failures reproduce.
struct SeededRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(upTo bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Int(z % UInt64(bound))
    }
}
