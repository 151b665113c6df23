import BookshelfTestSupport
import Foundation
import TestTags
import Testing

/// Issue 55, item 17, as a user would meet it: `bookshelf edit` signed in with a search path
/// that puts the account's own schema before pg_catalog.
@Suite(.serialized, .tags(.postgres, .process)) struct PostgresSearchPathCommandLineTests {
    @Test(
        "an edit under a search path that puts the account's own pg_current_xact_id first records a real change",
        .enabled(if: PostgresScratchServer.shouldRun))
    func editUnderHostileSearchPath() throws {
        // Private: `bookshelf setup` makes fixed role names (alice…), which belong to the whole server.
        let server = try PostgresScratchServer(passwordRoles: [])
        defer { server.stop() }
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let clean = sandbox.withoutLibpqSettings
        try sandbox.setUp(server)
        // `public` allowing CREATE to everyone was PostgreSQL's default before version 15.
        try server.superuserSQL("GRANT CREATE ON SCHEMA public TO alice")
        try server.superuserSQL(
            """
            SET ROLE alice;
            CREATE FUNCTION public.pg_current_xact_id() RETURNS xid8 LANGUAGE sql AS $$ SELECT '1'::xid8 $$;
            CREATE FUNCTION public.pg_notify(text, text) RETURNS void LANGUAGE sql AS $$ SELECT $$;
            """)
        let hostile = server.conninfo(user: "alice") + " options='-c search_path=public,pg_catalog,bookshelf'"

        let edited = try sandbox.run(["edit", "2", "--title", "X", "--db", hostile], environment: clean)
        #expect(edited.status == 0 && edited.output == "2\n", "\(edited.errors)")
        // Raises, and so throws, when the save stored the account's transaction id.
        #expect(throws: Never.self) {
            try server.superuserSQL(
                """
                DO $$ BEGIN
                    IF (SELECT changed_in FROM bookshelf.books WHERE id = 2) = '1'::xid8 THEN
                        RAISE 'the save stored changed_in = 1';
                    END IF;
                END $$
                """)
        }
    }
}
