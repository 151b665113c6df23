import BookCatalog
@testable import PostgresCatalog
import TestTags
import Testing

/// The database refuses, even from hand-written SQL, every character `TerminalSafety` calls
/// unsafe (the scalars below are the ones its first CHECK missed); a catalog made before the
/// rule was widened keeps what it already held.
@Suite(
    "PostgreSQL terminal safety", .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"),
    .tags(.postgres))
struct PostgresTerminalSafetyTests {
    /// The scalars the first CHECK let through (bidi marks and the line separators).
    static let onceAllowed: [Unicode.Scalar] = ["\u{061C}", "\u{200E}", "\u{200F}", "\u{2028}", "\u{2029}"]

    @Test("raw SQL cannot store a title or author a terminal would act on; older rows stay")
    func rawSQLIsHeldToTheSameRule() async throws {
        let catalog = try await PostgresTestCatalog.make(schemaVersion: 4)
        let books = try await catalog.addBooks([NewBook(title: "Emma"), NewBook(title: "Persuasion")], scope: "main")
        let update = "UPDATE bookshelf.books SET title = $1, revision = revision + 1 WHERE id = $2"
        // Before version 5 a line separator got in by raw SQL.
        _ = try await catalog.setup.execute(update, ["Old\u{2028}row", String(books[1].id)])
        #expect(try await catalog.setup.migrate() == PostgresSchema.latestVersion)

        for scalar in Self.onceAllowed {
            let text = "Emma \(Character(scalar)) Revised"
            let code = "U+" + String(scalar.value, radix: 16, uppercase: true)
            for (column, constraint) in [("title", "books_title_valid"), ("author", "books_author_valid")] {
                let refusal = await #expect(throws: (any Error).self, "\(column) with \(code)") {
                    _ = try await catalog.setup.execute(
                        "UPDATE bookshelf.books SET \(column) = $1, revision = revision + 1 WHERE id = $2",
                        [text, String(books[0].id)])
                }
                #expect(
                    refusal.map { String(describing: $0).contains(constraint) } == true,
                    "\(column) with \(code): \(String(describing: refusal))")
            }
        }
        // The row stored before the rule stays readable, and a safe edit of it is taken.
        _ = try await catalog.setup.execute(update, ["Persuasion, Revised", String(books[1].id)])
        _ = try await catalog.setup.execute(update, ["Emma, Revised", String(books[0].id)])
    }
}
