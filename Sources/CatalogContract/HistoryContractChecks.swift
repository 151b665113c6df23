import BookCatalog
import Foundation
import Testing

/// Revision history: every committed save, newest first, in the account's scope only.
extension ContractCheck {
    static let history: [ContractCheck] = [
        ContractCheck("a book's history starts at the revision it was added at, by no account") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let book = library.book(3)
            let revisions = try await editor.history(of: book.id)
            #expect(revisions.map(\.record) == [book])
            #expect(revisions.first?.account == nil && revisions.first?.operation == nil)
        },
        ContractCheck("every committed save is recorded with its account, time and operation, newest first") {
            fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let other = try await library.remote(for: "editor2")
            let book = library.book(0)
            let before = Date().addingTimeInterval(-5)
            let first = SaveRequest(id: book.id, title: "Rome, Again", expectedRevision: 1)
            let second = SaveRequest(id: book.id, title: "Rome, Again", author: "M. Beard", expectedRevision: 2)
            let savedFirst = try await editor.save(first)
            let savedSecond = try await other.save(second)
            let after = Date().addingTimeInterval(5)
            let revisions = try await editor.history(of: book.id)
            #expect(revisions.map(\.record) == [savedSecond, savedFirst, book])
            #expect(revisions.map(\.account) == ["editor2", "editor", nil])
            #expect(revisions.map(\.operation) == [second.operation, first.operation, nil])
            // The saves happened between the two readings of the clock (with slack for a server's
            // clock); the first revision is older, from when the catalog was made.
            #expect(revisions.prefix(2).allSatisfy { $0.savedAt > before && $0.savedAt < after })
            #expect(revisions.count == 3 && revisions[2].savedAt < after)
            #expect(try await other.history(of: book.id) == revisions)
        },
        ContractCheck("refused and conflicting saves leave no trace in the history") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let reader = try await library.remote(for: "reader")
            let book = library.book(1)
            let saved = try await editor.save(SaveRequest(id: book.id, title: "Café Society II", expectedRevision: 1))
            await expectFailure(.conflict(expected: 1, actual: 2)) {
                _ = try await editor.save(SaveRequest(id: book.id, title: "Late", expectedRevision: 1))
            }
            await expectFailure(.notAllowed) {
                _ = try await reader.save(SaveRequest(id: book.id, title: "Vandal", expectedRevision: 2))
            }
            #expect(try await reader.history(of: book.id).map(\.record) == [saved, book])
        },
        ContractCheck("another scope's history, and an unknown book's, is missing") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let outsider = try await library.remote(for: "outsider")
            await expectFailure(.missing) { _ = try await editor.history(of: library.secret.id) }
            await expectFailure(.missing) { _ = try await editor.history(of: 987_654) }
            await expectFailure(.missing) { _ = try await outsider.history(of: library.book(0).id) }
            #expect(try await outsider.history(of: library.secret.id).map(\.record) == [library.secret])
        },
    ]
}
