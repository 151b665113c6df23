@testable import BookCatalog
import Testing
@testable import BookshelfModel

/// The message of a save the store lost is one status line: the book, the revision and what
/// to do must all fit, whatever the title (under tmux at 120 columns, the tail was cut off).
@MainActor
@Suite struct LostSaveMessageTests {
    static func message(title: String, saved: Int = 99_999, current: Int = 99_998) -> String {
        BookshelfModel.lostSaveMessage(
            LostSave(
                saved: BookRecord(id: 7, title: title, revision: saved, author: ""),
                current: BookRecord(id: 7, title: "Before", revision: current, author: "")))
    }

    @Test func aShortTitleIsNamedWholeWithTheRevisionAndWhatToDo() {
        let text = Self.message(title: "Dune", saved: 7, current: 6)
        #expect(text == "Your save of “Dune” (revision 7) was lost. Open the book: your text is kept.")
    }

    @Test func aLongTitleIsShortenedSoTheWholeMessageFitsAStatusLine() {
        let title = String(repeating: "Quixotic Zebra Handbook ", count: 8)
        let text = Self.message(title: title)
        #expect(text.count <= 118, "\(text.count): \(text)")
        #expect(text.hasPrefix("Your save of “Quixotic Zebra Handbook Quixotic Zebra…” (revision 99999) was lost."))
        #expect(text.hasSuffix("Open the book: your text is kept."))
    }
}
