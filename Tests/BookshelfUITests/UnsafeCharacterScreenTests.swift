import BookCatalog
import BookshelfTestSupport
import Testing

/// Titles and authors that reached a store without validation (another program, an old
/// version, a hand-written SQL statement) are drawn harmlessly.
@MainActor
@Suite("Unsafe characters on screen")
struct UnsafeCharacterScreenTests {
    @Test("every class of unsafe character in a stored title or author is drawn as a visible stand-in")
    func storedUnsafeCharactersAreDrawnHarmlessly() async {
        let harness = AppHarness(columns: 120, rows: 30, books: [])
        for (index, sample) in UnsafeCharacters.samples.enumerated() {
            let character = String(sample.scalar)
            harness.catalog.put(
                BookRecord(
                    id: index + 1, title: "Book\(index)x\(character)y", revision: 1,
                    author: "Writer\(index)p\(character)q"), scope: "main")
        }
        await harness.start()
        let text = harness.text
        for (index, sample) in UnsafeCharacters.samples.enumerated() {
            #expect(!text.unicodeScalars.contains(sample.scalar), "\(sample.name) reached the screen")
            #expect(text.contains("Book\(index)x"), "the book with \(sample.name) is listed:\n\(text)")
        }
    }
}
