@testable import bookshelf
import Foundation
import Testing

/// The progress display's text, tested directly; SampleProgressTests cover it end to end.
@Suite struct ProgressDisplayTests {
    final class Written: @unchecked Sendable {
        var parts: [String] = []
    }

    @Test func plainLinesComeOncePerTenthHoweverOftenTheCountIsGiven() {
        let written = Written()
        let display = ProgressDisplay(label: "Adding", total: 1_000, form: .plain) { written.parts.append($0) }
        for done in 1...1_000 { display.update(done) }
        display.update(1_000)
        display.finish()
        #expect(written.parts.count == 10, "\(written.parts)")
        #expect(written.parts.allSatisfy { $0.hasSuffix("\n") && !$0.contains("\r") })
        #expect(written.parts.first?.hasPrefix("Adding: 100 of 1,000 (10%)") == true, "\(written.parts)")
        #expect(written.parts.last?.hasPrefix("Adding: 1,000 of 1,000 (100%)") == true, "\(written.parts)")
    }

    @Test func onATerminalTheLastCountIsAlwaysDrawnAndTheLineIsLeftInPlace() {
        let written = Written()
        let display = ProgressDisplay(label: "Adding", total: 500, form: .terminal(columns: 80)) {
            written.parts.append($0)
        }
        display.update(1)
        display.update(500)  // at once: the end is drawn even within the redraw interval
        display.update(400)  // a count going back is ignored
        display.finish()
        #expect(written.parts.count == 3, "\(written.parts)")
        #expect(written.parts.dropLast().allSatisfy { $0.hasPrefix("\r\u{1B}[K") })
        #expect(written.parts[1].contains("500 of 500  100%"), "\(written.parts)")
        #expect(written.parts.last == "\n")
    }

    @Test func nothingDrawnMeansNothingToFinish() {
        let written = Written()
        let display = ProgressDisplay(label: "Adding", total: 10, form: .terminal(columns: 80)) {
            written.parts.append($0)
        }
        display.finish()
        #expect(written.parts.isEmpty)
    }

    @Test func aTerminalLineNeverFillsItsWidthSoCarriageReturnRedrawsAllOfIt() {
        for columns in [20, 40, 60, 80, 120, 300] {
            for (done, total) in [(0, 10_000_000), (3_456_789, 10_000_000), (10_000_000, 10_000_000), (5, 7)] {
                let line = ProgressDisplay.terminalLine(
                    label: "Adding sample books", done: done, total: total,
                    elapsed: .seconds(42), columns: columns)
                #expect(line.count < columns, "\(columns): \(line)")
            }
        }
        let wide = ProgressDisplay.terminalLine(
            label: "Adding", done: 250, total: 1_000, elapsed: .seconds(2), columns: 100)
        #expect(
            wide.contains("[##########------------------------------] 250 of 1,000  25%  125/s  6 s left"), "\(wide)")
    }

    @Test func timesReadAsSecondsMinutesOrHours() {
        #expect(ProgressDisplay.timeText(8.4) == "8 s")
        #expect(ProgressDisplay.timeText(185) == "3 min 05 s")
        #expect(ProgressDisplay.timeText(3_720) == "1 h 02 min")
    }
}
