@testable import PostgresCatalog

/// The server ending a saving session's own connection while it writes one book: during the
/// book's statement, or during the commit (a deferred trigger runs in COMMIT), so that a test
/// sees a write lost before it was sent and one lost after.
enum ConnectionCut {
    /// Installs the function the triggers call: it terminates its own backend.
    static func prepare(_ setup: PostgresSetup) async throws {
        _ = try await setup.execute(
            """
            CREATE FUNCTION bookshelf.cut_own_connection() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_terminate_backend(pg_backend_pid());
                PERFORM pg_sleep(5);
                RETURN NEW;
            END $$
            """)
    }

    /// Cuts the connection during the statement that writes book `id`.
    static func duringStatement(of id: Int, _ setup: PostgresSetup) async throws {
        _ = try await setup.execute(
            """
            CREATE TRIGGER cut_during_statement BEFORE UPDATE ON bookshelf.books
            FOR EACH ROW WHEN (OLD.id = \(id)) EXECUTE FUNCTION bookshelf.cut_own_connection()
            """)
    }

    /// Cuts it during the commit of a transaction that wrote book `id` instead.
    static func duringCommit(of id: Int, _ setup: PostgresSetup) async throws {
        _ = try await setup.execute("DROP TRIGGER IF EXISTS cut_during_statement ON bookshelf.books")
        _ = try await setup.execute(
            """
            CREATE CONSTRAINT TRIGGER cut_during_commit AFTER UPDATE ON bookshelf.books
            DEFERRABLE INITIALLY DEFERRED
            FOR EACH ROW WHEN (NEW.id = \(id)) EXECUTE FUNCTION bookshelf.cut_own_connection()
            """)
    }
}
