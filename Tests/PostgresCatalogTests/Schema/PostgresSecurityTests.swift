import BookCatalog
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// Row-level security and grants, checked with hand-written SQL through libpq as each role:
/// what the database refuses, not what the app chooses not to send.
@Suite(
    "PostgreSQL row-level security",
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"), .tags(.postgres))
struct PostgresSecurityTests {
    struct Setting {
        let catalog: PostgresTestCatalog
        let editor: Account
        let reader: Account
        let outsider: Account
        let mainBooks: [BookRecord]
        let otherBooks: [BookRecord]

        init() async throws {
            catalog = try await PostgresTestCatalog.make()
            editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
            reader = try await catalog.addAccount("reader", role: .reader, scope: "main")
            outsider = try await catalog.addAccount("outsider", role: .editor, scope: "other")
            mainBooks = try await catalog.addBooks([NewBook(title: "Dune"), NewBook(title: "Emma")], scope: "main")
            otherBooks = try await catalog.addBooks([NewBook(title: "Secret Plans")], scope: "other")
        }

        func sql(as account: Account) async throws -> RawSQLSession {
            try await RawSQLSession(catalog.connector(for: account))
        }
    }

    @Test("a reader's UPDATE is refused by the database, and it cannot become an editor")
    func readerCannotUpdate() async throws {
        let setting = try await Setting()
        let reader = try await setting.sql(as: setting.reader)
        let dune = setting.mainBooks[0]
        let update = try await reader.run(
            "UPDATE bookshelf.books SET title = 'Mine', revision = revision + 1 WHERE id = $1", [String(dune.id)])
        #expect(update.sqlState == PostgresServerError.insufficientPrivilege)
        let editors = try await setting.catalog.group(.editor)
        #expect(try await reader.run("SET ROLE \(editors)").sqlState == PostgresServerError.insufficientPrivilege)
        #expect(
            try await reader.run(
                "INSERT INTO bookshelf.saves (operation, book_id, revision) VALUES ($1::uuid, $2, 2)",
                [UUID().uuidString, String(dune.id)]
            ).sqlState == PostgresServerError.insufficientPrivilege)
        #expect(
            try await reader.rows("SELECT title, revision FROM bookshelf.books WHERE id = $1", [String(dune.id)])
                == [["Dune", "1"]])
    }

    @Test("another scope's rows are invisible to direct SQL, and only one's own account shows")
    func otherScopeInvisible() async throws {
        let setting = try await Setting()
        for account in [setting.reader, setting.editor] {
            let session = try await setting.sql(as: account)
            let ids = try await session.rows("SELECT id FROM bookshelf.books ORDER BY id").compactMap {
                $0[0].flatMap { Int($0) }
            }
            #expect(ids == setting.mainBooks.map(\.id))
            #expect(try await session.rows("SELECT count(*) FROM bookshelf.books WHERE scope = 'other'") == [["0"]])
            #expect(try await session.rows("SELECT name FROM bookshelf.accounts") == [[account.name]])
        }
        // The search function (which runs as the owner) applies the signed-in role's scope.
        let search =
            "SELECT id FROM bookshelf.search_page(ARRAY[$1]::text[], $2, 50, NULL, NULL, NULL, 10000, $3::tsquery, $2) WHERE id IS NOT NULL"
        let all =
            "SELECT id FROM bookshelf.search_page(ARRAY[]::text[], NULL, 50, NULL, NULL, NULL, 10000, NULL, NULL) WHERE id IS NOT NULL"
        let editor = try await setting.sql(as: setting.editor)
        #expect(try await editor.rows(all).count == setting.mainBooks.count)
        #expect(try await editor.rows(search, ["% secret%", " secret%", "'secret'"]).isEmpty)
        #expect(try await editor.rows(search, ["'); DELETE FROM bookshelf.books; --", "$1", "'x'"]).isEmpty)
        // SET ROLE to the group drops the account, and with it every book; the search still
        // answers for the role that signed in, never for another scope.
        _ = try await editor.rows("SET ROLE \(try await setting.catalog.group(.editor))")
        #expect(try await editor.rows("SELECT count(*) FROM bookshelf.books") == [["0"]])
        #expect(try await editor.rows(search, ["% secret%", " secret%", "'secret'"]).isEmpty)
        let admin = try await RawSQLSession(setting.catalog.adminConnector)
        #expect(try await admin.rows("SELECT count(*) FROM bookshelf.books") == [["3"]])
        let stranger = try await RawSQLSession(setting.catalog.adminConnector)
        _ = try await stranger.rows("CREATE ROLE " + setting.editor.name + "_x LOGIN")
        let unlisted = try await RawSQLSession(
            setting.catalog.cluster.connector(
                database: setting.catalog.database, user: setting.editor.name + "_x"))
        #expect(try await unlisted.run(all).sqlState == PostgresServerError.insufficientPrivilege)
    }

    @Test("an editor cannot touch another scope, move a book, or break the revision rule")
    func editorBounds() async throws {
        let setting = try await Setting()
        let outsider = try await setting.sql(as: setting.outsider)
        let dune = String(setting.mainBooks[0].id)
        let secret = String(setting.otherBooks[0].id)
        #expect(
            try await outsider.rows(
                "UPDATE bookshelf.books SET title = 'Taken', revision = revision + 1 WHERE id = $1 RETURNING id", [dune]
            ).isEmpty)
        #expect(
            try await outsider.run("UPDATE bookshelf.books SET scope = 'main' WHERE id = $1", [secret]).sqlState
                == PostgresServerError.insufficientPrivilege)
        #expect(
            try await outsider.run("DELETE FROM bookshelf.books WHERE id = $1", [secret]).sqlState
                == PostgresServerError.insufficientPrivilege)
        #expect(
            try await outsider.run(
                "INSERT INTO bookshelf.books (scope, title, title_sort, title_words, author_words) VALUES ('main', 'x', 'x', ' x', ' ')"
            ).sqlState == PostgresServerError.insufficientPrivilege)
        #expect(
            try await outsider.run("UPDATE bookshelf.books SET revision = revision + 5 WHERE id = $1", [secret])
                .sqlState
                == PostgresServerError.checkViolation)
        #expect(
            try await outsider.run(
                "UPDATE bookshelf.books SET title = '', revision = revision + 1 WHERE id = $1",
                [secret]
            ).sqlState == PostgresServerError.checkViolation)
        #expect(
            try await outsider.run(
                "UPDATE bookshelf.books SET title = $2, revision = revision + 1 WHERE id = $1",
                [secret, "Bell\u{7}"]
            ).sqlState == PostgresServerError.checkViolation)
        let admin = try await RawSQLSession(setting.catalog.adminConnector)
        #expect(
            try await admin.rows("SELECT title, revision, scope FROM bookshelf.books WHERE id = $1", [dune])
                == [["Dune", "1", "main"]])
        #expect(
            try await admin.rows("SELECT title, revision, scope FROM bookshelf.books WHERE id = $1", [secret])
                == [["Secret Plans", "1", "other"]])
    }

    @Test("save records are visible only for books one can see")
    func saveRecordsFollowScope() async throws {
        let setting = try await Setting()
        let outsider = try await setting.catalog.remote(for: setting.outsider)
        let request = SaveRequest(id: setting.otherBooks[0].id, title: "Revised Plans", expectedRevision: 1)
        _ = try await outsider.save(request)
        #expect(try await outsider.committedRevision(of: request.operation) == 2)
        let editor = try await setting.catalog.remote(for: setting.editor)
        #expect(try await editor.committedRevision(of: request.operation) == nil)
        let raw = try await setting.sql(as: setting.reader)
        #expect(try await raw.rows("SELECT count(*) FROM bookshelf.saves") == [["0"]])
    }
}
