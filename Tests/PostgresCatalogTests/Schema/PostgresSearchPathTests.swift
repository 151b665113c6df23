import BookCatalog
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// The catalog's functions and triggers run with `search_path` pinned to `pg_catalog, pg_temp`,
/// so a caller's search path cannot put its own functions in place of the ones they call
/// (PostgreSQL's "Writing SECURITY DEFINER Functions Safely"; issue 55, item 17).
@Suite(
    "PostgreSQL functions under a caller's search path",
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"), .tags(.postgres))
struct PostgresSearchPathTests {
    @Test("every function the catalog owns pins its search path to pg_catalog, pg_temp")
    func everyFunctionPinsItsSearchPath() async throws {
        let catalog = try await PostgresTestCatalog.make()
        // The extension's functions (pg_trgm, installed in this schema) are the extension's.
        let owned = """
            FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = 'bookshelf' AND NOT EXISTS (
                SELECT 1 FROM pg_catalog.pg_depend d
                WHERE d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
            """
        let unpinned = try await catalog.setup.execute(
            """
            SELECT p.oid::regprocedure::text, coalesce(array_to_string(p.proconfig, '; '), 'no settings') \(owned)
              AND NOT coalesce('search_path=pg_catalog, pg_temp' = ANY (p.proconfig), false)
            ORDER BY 1
            """)
        #expect(unpinned.isEmpty, "functions whose search path is not pinned: \(unpinned)")
        // Not vacuous: the triggers' functions and the search are among them.
        let names = try await catalog.setup.execute("SELECT p.proname::text \(owned) ORDER BY 1").map { $0[0] ?? "" }
        for name in ["guard_book_update", "notify_books_changed", "record_revisions", "search_page", "word_prefixes"] {
            #expect(names.contains(name), "\(name) is not among the catalog's functions: \(names)")
        }
    }

    @Test("a save under a search path that puts the account's own functions first records its change and announces it")
    func saveUnderHostileSearchPath() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let alice = try await catalog.addAccount("alice", role: .editor, scope: "main")
        let reader = try await catalog.addAccount("reader", role: .reader, scope: "main")
        let book = try #require(try await catalog.addBooks([NewBook(title: "Dune")], scope: "main").first)
        // `public` allowing CREATE to everyone was PostgreSQL's default before version 15.
        _ = try await catalog.setup.execute("GRANT CREATE ON SCHEMA public TO \(alice.name)")
        let sql = try await RawSQLSession(catalog.connector(for: alice))
        _ = try await sql.rows(
            "CREATE FUNCTION public.pg_current_xact_id() RETURNS xid8 LANGUAGE sql AS $$ SELECT '1'::xid8 $$")
        _ = try await sql.rows(
            "CREATE FUNCTION public.pg_notify(text, text) RETURNS void LANGUAGE sql AS $$ SELECT $$")

        let listener = try await RawSQLSession(catalog.connector(for: reader))
        _ = try await listener.rows("LISTEN bookshelf_changed")
        let watching = try await catalog.remote(for: reader)
        #expect(try await watching.checkForChanges() == nil)
        let before = try await catalog.setup.execute("SELECT pg_current_xact_id()::text")
        let floor = try #require(before.first?[0].flatMap { UInt64($0) })

        let hostile = PostgresConnector(
            catalog.connector(for: alice).connectionString + " options='-c search_path=public,pg_catalog,bookshelf'",
            connectTimeoutSeconds: 5)
        let remote = try await PostgresRemote.connect(hostile)
        #expect(try await remote.save(id: book.id, title: "X", expectedRevision: 1).revision == 2)

        let stored = try await catalog.setup.execute(
            "SELECT changed_in::text FROM bookshelf.books WHERE id = $1", [String(book.id)])
        let changedIn = try #require(stored.first?[0].flatMap { UInt64($0) })
        #expect(changedIn > floor, "the save's transaction is after the one read before it, not \(changedIn)")
        _ = try await listener.rows("SELECT 1")
        #expect(try await listener.notifications().count == 1, "the change is announced")
        #expect(try await watching.checkForChanges() == ChangeNotice(bookIDs: [book.id]))
    }
}
