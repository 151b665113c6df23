import BookCatalog
import BookshelfModel
import BookshelfUI
import TerminalUI
import Testing

/// The history names the fields each revision changed, and a restore brings back every field.
@MainActor
@Suite struct HistoryFieldsTests {
    static let tagged = BookDetails(
        isbn: "9780140449082", year: 1854, tags: ["history", "rome"], notes: "first\nsecond")

    /// bob gives Mommsen's book (#2) an ISBN, a year, tags and notes (revision 2), then changes
    /// only the notes (revision 3); alice opens its history on a 140×24 screen.
    func mommsenWithFields() async throws -> AppHarness {
        let harness = AppHarness(
            columns: 140, rows: 24,
            accounts: [
                Account(name: "alice", role: .editor, scope: "main"),
                Account(name: "bob", role: .editor, scope: "main"),
            ])
        let bob = harness.otherEditor()
        _ = try await bob.save(
            SaveRequest(
                id: 2, title: "History of Rome", author: "Theodor Mommsen", details: Self.tagged,
                expectedRevision: 1))
        _ = try await bob.save(
            SaveRequest(
                id: 2, title: "History of Rome", author: "Theodor Mommsen",
                details: BookDetails(isbn: "9780140449082", year: 1854, tags: ["history", "rome"], notes: "first"),
                expectedRevision: 2))
        await harness.start()
        await harness.type("mommsen")
        await harness.press(.function(3))
        return harness
    }

    /// Every field a revision changed beyond the title and author (shown whole above) says what
    /// it was and what it became, so that a restore is not done blind: the one-line form of
    /// each value (notes with "↵" for a line break, "(empty)" for nothing).
    @Test func eachRevisionSaysWhatEachChangedFieldWasAndBecame() async throws {
        let harness = try await mommsenWithFields()
        let screen = harness.screen
        let rows = ["Revision 3 ·", "Revision 2 ·", "Revision 1 ·"].compactMap { screen.row(containing: $0) }
        try #require(rows.count == 3, "\(harness.text)")
        // Heading, title, author, then each field it changed beyond those two.
        #expect(harness.lines[rows[0] + 1].hasSuffix("│ Title     History of Rome"), "\(harness.text)")
        #expect(harness.lines[rows[0] + 3].hasSuffix("│ Notes     first ↵ second → first"), "\(harness.text)")
        #expect(
            Array(harness.lines[(rows[1] + 3)...(rows[1] + 6)]).map { $0.split(separator: "│").last.map(String.init) }
                == [
                    " ISBN      (empty) → 9780140449082", " Year      (empty) → 1854",
                    " Tags      (empty) → history, rome", " Notes     (empty) → first ↵ second",
                ], "\(harness.text)")
        #expect(rows[1] == rows[0] + 4 && rows[2] == rows[1] + 7, "\(harness.text)")
        #expect(
            harness.lines[(rows[2] + 1)...].allSatisfy { !$0.contains(" → ") },
            "the first known revision changed nothing")
        // Where the two differ is marked (the " ↵ second" that went); the "first" they share is not.
        let notes = rows[0] + 3
        let was = try #require(screen.column(of: "first ↵ second", row: notes))
        #expect(screen[was, notes].style != Theme.difference, "\(harness.text)")
        let now = try #require(screen.column(of: "→ first", row: notes)) + 2
        #expect(screen[now, notes].style == .plain)
        #expect(screen[was + 6, notes].style == Theme.difference, "the part of the old notes that went is marked")
    }

    @Test func restoringARevisionBringsBackEveryField() async throws {
        let harness = try await mommsenWithFields()
        await harness.press(.down, .enter, .character("y"))
        #expect(harness.model.state.editor?.outcome == .saved(revision: 4), "\(harness.text)")
        let restored = try await harness.otherEditor().load(id: 2)
        #expect(restored.revision == 4 && restored.details == Self.tagged)
        #expect(harness.model.state.editor?.draft.notes == "first\nsecond")
    }
}
