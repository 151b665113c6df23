import BookCatalog
import Foundation
import SQLiteCatalog
import Testing

/// Revision history in an SQLite file that was written before history was kept.
@Suite struct SQLiteHistoryTests {
    @Test func aCatalogFromBeforeHistoryStartsEachBookAtItsCurrentRevision() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v1.sqlite")
        do {
            let created = try RawConnection(path, create: true)
            try execute(created.handle, SchemaUpgradeTests.versionOneSchema)
            try execute(
                created.handle,
                """
                INSERT INTO accounts VALUES ('editor', 'editor', 'main'), ('outsider', 'editor', 'other');
                INSERT INTO books(scope, title, author, revision, title_key, title_terms, author_terms, change_seq) VALUES
                    ('main', 'Rome', 'Livy', 1, 'rome', 'rome', 'livy', 1),
                    ('main', 'A History of Rome', 'Mary Beard', 3, 'a history of rome', 'a history of rome', 'mary beard', 2),
                    ('other', 'Secret', '', 2, 'secret', 'secret', '', 3);
                PRAGMA user_version = 1;
                """)
        }
        let catalog = try SQLiteCatalog.open(path: path, create: false)
        let editor = try catalog.remote(account: "editor")
        let rome = BookRecord(id: 2, title: "A History of Rome", revision: 3, author: "Mary Beard")
        let started = try await editor.history(of: rome.id)
        #expect(started.map(\.record) == [rome] && started[0].account == nil && started[0].operation == nil)
        #expect(
            try await editor.history(of: 1).map(\.record) == [
                BookRecord(id: 1, title: "Rome", revision: 1, author: "Livy")
            ])
        await expectFailure(.missing) { _ = try await editor.history(of: 3) }

        let request = SaveRequest(id: rome.id, title: "Rome", expectedRevision: 3)
        let saved = try await editor.save(request)
        let after = try await editor.history(of: rome.id)
        #expect(after.map(\.record) == [saved, rome])
        #expect(after[0].account == "editor" && after[0].operation == request.operation)
        // Another connection (another process, say) reads the same history.
        #expect(try await catalog.remote(account: "editor").history(of: rome.id) == after)
    }

    @Test func anImportStartsTheHistoryOfEveryBookItAdds() async throws {
        let directory = try TemporaryDirectory()
        let catalog = try SQLiteCatalog.open(path: directory.path("imported.sqlite"), create: true)
        try catalog.addAccount(Account(name: "reader", role: .reader, scope: "main"))
        try catalog.insertBooks([NewBook(title: "One"), NewBook(title: "Two", author: "B")], scope: "main")
        let reader = try catalog.remote(account: "reader")
        #expect(try await reader.history(of: 1).map(\.record) == [BookRecord(id: 1, title: "One", revision: 1)])
        #expect(
            try await reader.history(of: 2).map(\.record) == [BookRecord(id: 2, title: "Two", revision: 1, author: "B")]
        )
    }
}
