@testable import BookshelfUI
import Testing
import TerminalUI

@Suite struct DifferenceElisionTests {
    typealias Piece = DifferenceElision.Piece

    func same(_ text: String) -> Piece { Piece(text: text, differs: false) }
    func differs(_ text: String) -> Piece { Piece(text: text, differs: true) }
    func shown(_ pieces: [Piece]) -> String { pieces.map(\.text).joined() }

    @Test func textsThatFitAreWholeWithTheDifferenceMarked() {
        let (theirs, yours) = DifferenceElision.elide("Rome, Vol. 1", "Rome, Vol. 2", width: 20)
        #expect(theirs == [same("Rome, Vol. "), differs("1")])
        #expect(yours == [same("Rome, Vol. "), differs("2")])
        let (a, b) = DifferenceElision.elide("Dune", "Dune", width: 20)
        #expect(a == [same("Dune")] && b == [same("Dune")])
    }

    @Test func longTitlesDifferingAtTheEndKeepTheDifferenceAndElideTheCommonMiddle() {
        // Cut at the end, both would read "A Short History of the Otto…".
        let (theirs, yours) = DifferenceElision.elide(
            "A Short History of the Ottoman Empire — Lord Kinross",
            "A Short History of the Ottoman Turks — Lord Kinross", width: 28)
        // 22 columns of context around the 6-column difference: 7 for the common end
        // (" — Lor" and "…"), 15 for the common start ("A Short", "…", "ttoman ").
        #expect(theirs == [same("A Short"), .ellipsis, same("ttoman "), differs("Empire"), same(" — Lor"), .ellipsis])
        #expect(yours == [same("A Short"), .ellipsis, same("ttoman "), differs("Turks"), same(" — Lor"), .ellipsis])
        #expect(TextLayout.width(shown(theirs)) == 28)
    }

    @Test func wideCharactersAreCountedByColumns() {
        let (theirs, yours) = DifferenceElision.elide("東京物語 A", "東京物語 B", width: 6)
        #expect(theirs == [same("東"), .ellipsis, same(" "), differs("A")])
        #expect(yours == [same("東"), .ellipsis, same(" "), differs("B")])
    }

    @Test func aDifferenceAtTheStartKeepsTheStart() {
        let (theirs, yours) = DifferenceElision.elide(
            "Volume One of a Very Long Series of Books",
            "Book One of a Very Long Series of Books", width: 16)
        #expect(theirs.first == differs("Volume"))
        #expect(yours.first == differs("Book"))
        #expect(shown(theirs).hasSuffix("…"))
    }

    @Test func everyLineFitsAndKeepsAllOfASmallDifference() {
        let words = ["A", "Short", "History", "of", "the", "Ottoman", "Empire", "東京", "🌸", "Turks", "Rome", "—"]
        var state: UInt64 = 7
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        var checked = 0
        for _ in 0..<400 {
            let base = (0..<(2 + next(8))).map { _ in words[next(words.count)] }
            var other = base
            other[next(other.count)] = words[next(words.count)]
            let a = base.joined(separator: " "), b = other.joined(separator: " ")
            for width in [8, 12, 20, 28, 40] {
                let (first, second) = DifferenceElision.elide(a, b, width: width)
                let differing = [first, second].map { $0.filter(\.differs).map(\.text).joined() }
                guard differing.allSatisfy({ TextLayout.width($0) + 2 <= width }) else { continue }
                checked += 1
                // Both lines are cut alike (so their differences line up): whole only when both fit.
                let bothFit = TextLayout.width(a) <= width && TextLayout.width(b) <= width
                for (line, text) in [(first, a), (second, b)] {
                    #expect(TextLayout.width(shown(line)) <= width, "\(text) at \(width)")
                    if bothFit { #expect(shown(line) == text) }
                }
                // The differing parts are shown whole, and they are what differs.
                #expect(differing[0] != differing[1] || a == b, "\(a) / \(b)")
            }
        }
        #expect(checked > 500)
    }
}
