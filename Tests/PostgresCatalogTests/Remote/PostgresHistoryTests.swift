import BookCatalog
import CatalogContract
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// Revision history on PostgreSQL: written by the database for every committed update
/// (hand-written SQL included), readable only within the account's scope, and started at
/// each book's current revision when an older catalog migrates.
@Suite(
    "PostgreSQL revision history", .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"),
    .tags(.postgres))
struct PostgresHistoryTests {
    @Test("raw SQL as another scope sees none of a scope's history and no account can write it")
    func historyIsScoped() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let reader = try await catalog.addAccount("reader", role: .reader, scope: "main")
        let outsider = try await catalog.addAccount("outsider", role: .editor, scope: "other")
        let dune = try await catalog.addBooks([NewBook(title: "Dune", author: "Frank Herbert")], scope: "main")[0]
        let secret = try await catalog.addBooks([NewBook(title: "Secret Plans")], scope: "other")[0]
        _ = try await catalog.remote(for: editor).save(
            SaveRequest(id: dune.id, title: "Dune Messiah", expectedRevision: 1))
        // A save typed by hand is history too, under the role that signed in.
        let editorSQL = try await RawSQLSession(catalog.connector(for: editor))
        _ = try await editorSQL.rows(
            "UPDATE bookshelf.books SET title = 'Children of Dune', revision = revision + 1 WHERE id = $1",
            [String(dune.id)])

        let outsiderSQL = try await RawSQLSession(catalog.connector(for: outsider))
        #expect(
            try await outsiderSQL.rows("SELECT book_id, revision FROM bookshelf.book_revisions ORDER BY 1, 2")
                == [[String(secret.id), "1"]])
        #expect(
            try await outsiderSQL.rows(
                "SELECT count(*) FROM bookshelf.book_revisions WHERE book_id = $1",
                [String(dune.id)]) == [["0"]])
        #expect(
            try await outsiderSQL.rows("SELECT count(*) FROM bookshelf.book_revisions WHERE scope = 'main'") == [["0"]])
        let forged = try await outsiderSQL.run(
            "INSERT INTO bookshelf.book_revisions (book_id, revision, scope, title, author) VALUES ($1, 9, 'other', 'x', '')",
            [String(secret.id)])
        #expect(forged.sqlState == PostgresServerError.insufficientPrivilege)
        #expect(
            try await editorSQL.run("UPDATE bookshelf.book_revisions SET title = 'Rewritten'").sqlState
                == PostgresServerError.insufficientPrivilege)
        #expect(
            try await editorSQL.run("DELETE FROM bookshelf.book_revisions").sqlState
                == PostgresServerError.insufficientPrivilege)

        let readerSQL = try await RawSQLSession(catalog.connector(for: reader))
        #expect(
            try await readerSQL.rows(
                "SELECT revision, title, account FROM bookshelf.book_revisions WHERE book_id = $1 ORDER BY revision",
                [String(dune.id)])
                == [["1", "Dune", nil], ["2", "Dune Messiah", editor.name], ["3", "Children of Dune", editor.name]])
        await expectFailure(.missing) { _ = try await catalog.remote(for: outsider).history(of: dune.id) }
    }

    @Test("a catalog from before history starts each book's history at its current revision")
    func migrationStartsAtCurrentRevision() async throws {
        let catalog = try await PostgresTestCatalog.make(schemaVersion: 3)
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let books = try await catalog.addBooks(
            [NewBook(title: "Emma"), NewBook(title: "Persuasion", author: "Austen")],
            scope: "main")
        _ = try await catalog.setup.execute(
            "UPDATE bookshelf.books SET title = 'Emma, Revised', revision = revision + 1 WHERE id = $1",
            [String(books[0].id)])
        _ = try await catalog.setup.execute(
            "UPDATE bookshelf.books SET title = 'Emma, Final', revision = revision + 1 WHERE id = $1",
            [String(books[0].id)])
        #expect(try await catalog.setup.migrate() == PostgresSchema.latestVersion)

        let remote = try await catalog.remote(for: editor)
        let emma = BookRecord(id: books[0].id, title: "Emma, Final", revision: 3)
        let started = try await remote.history(of: emma.id)
        #expect(started.map(\.record) == [emma] && started[0].account == nil && started[0].operation == nil)
        #expect(try await remote.history(of: books[1].id).map(\.record) == [books[1]])
        let request = SaveRequest(id: emma.id, title: "Emma", expectedRevision: 3)
        let saved = try await remote.save(request)
        let after = try await remote.history(of: emma.id)
        #expect(after.map(\.record) == [saved, emma])
        #expect(after[0].account == editor.name && after[0].operation == request.operation)
    }

    @Test("a book's history reads its own saves through an index, however many the catalog holds")
    func historyReadsItsOwnSaves() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let book = try await catalog.addBooks([NewBook(title: "Emma")], scope: "main")[0]
        let remote = try await catalog.remote(for: editor)
        let saved = try await remote.save(SaveRequest(id: book.id, title: "Emma, Revised", expectedRevision: 1))
        // 20,000 saves of other books, as a catalog holds after many bulk edits.
        _ = try await catalog.setup.execute(
            """
            INSERT INTO bookshelf.saves (operation, book_id, revision)
            SELECT gen_random_uuid(), $1::bigint + n, 2 FROM generate_series(1, 20000) AS n
            """, [String(book.id)])
        _ = try await catalog.setup.execute("ANALYZE bookshelf.saves")

        // As the account, under the policy that checks each save's book.
        let editorSQL = try await RawSQLSession(catalog.connector(for: editor))
        let plan = try await editorSQL.rows("EXPLAIN " + PostgresStatements.history, [String(book.id)])
            .compactMap { $0.first ?? nil }.joined(separator: "\n")
        #expect(plan.contains("saves_by_book"), "\(plan)")
        #expect(!plan.contains("Seq Scan on saves"), "\(plan)")
        #expect(try await remote.history(of: book.id).map(\.record) == [saved, book])
    }
}
