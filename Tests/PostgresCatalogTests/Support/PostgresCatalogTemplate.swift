import Foundation
@testable import PostgresCatalog

/// The shared cluster's catalog template: one database migrated to the latest version once per
/// test process, cloned (`CREATE DATABASE … TEMPLATE`) for each test that wants a fresh catalog,
/// so a test pays for a file copy instead of a run of every migration.
///
/// A clone starts with its template's group roles (roles belong to the server), which would
/// make every clone's accounts readers or editors of every other clone. So each clone is given
/// groups of its own, named as migration 8 names them, before a test sees it.
actor PostgresCatalogTemplate {
    /// The migrated template's name, once made.
    private var template: Task<String, any Error>?
    /// The last clone asked for: each waits for the one before, since a template being cloned
    /// must have no other session on it, and one connection to `postgres` serves them all.
    private var lastClone: Task<Void, any Error>?
    private var administration: PostgresSetup?

    /// Makes `database` a copy of the template with groups of its own, on `cluster` (the one
    /// this template belongs to).
    func clone(into database: String, on cluster: PostgresTestCluster) async throws -> PostgresSetup {
        let previous = lastClone
        let clone = Task {
            _ = await previous?.result
            let template = try await self.migratedTemplate(on: cluster)
            // CREATE DATABASE takes no bound parameters; both names are made by this fixture.
            _ = try await self.admin(on: cluster).execute(
                "CREATE DATABASE \(database) TEMPLATE \(template) STRATEGY FILE_COPY")
        }
        lastClone = clone
        try await clone.value
        let setup = try await PostgresSetup.connect(cluster.connector(database: database))
        _ = try await setup.execute(Self.ownGroups)
        return setup
    }

    private func admin(on cluster: PostgresTestCluster) async throws -> PostgresSetup {
        if let administration { return administration }
        let made = try await PostgresSetup.connect(cluster.connector(database: "postgres"))
        administration = made
        return made
    }

    private func migratedTemplate(on cluster: PostgresTestCluster) async throws -> String {
        if let template { return try await template.value }
        let task = Task { try await self.migrateTemplate(on: cluster) }
        template = task
        return try await task.value
    }

    private func migrateTemplate(on cluster: PostgresTestCluster) async throws -> String {
        let name = "catalog_template"
        let admin = try await admin(on: cluster)
        _ = try await admin.execute("CREATE DATABASE \(name)")
        try await PostgresSetup.connect(cluster.connector(database: name)).migrate()
        // No session may stay on a template while it is cloned: refuse new ones, end the
        // migration's (its connection closes only when the set-up object goes).
        _ = try await admin.execute("ALTER DATABASE \(name) WITH ALLOW_CONNECTIONS false")
        _ = try await admin.execute(
            "SELECT pg_terminate_backend(pid, 5000) FROM pg_catalog.pg_stat_activity WHERE datname = $1", [name])
        return name
    }

    /// Run in a clone: new reader and editor groups named after the clone's database (as
    /// migration 8 names them), every privilege and policy of the template's groups in the
    /// schema moved to them (as migration 8 moves the server-wide groups'), and
    /// `bookshelf.groups` naming them. A template has no accounts, so no memberships move.
    static let ownGroups = """
        DO $$
        DECLARE
            database_name text := current_database();
            database_oid oid;
            attempt integer := 0;
            stem text;
            reader_group text;
            editor_group text;
            old_reader oid := (SELECT to_regrole(g.name) FROM bookshelf.groups g WHERE g.role = 'reader');
            old_editor oid := (SELECT to_regrole(g.name) FROM bookshelf.groups g WHERE g.role = 'editor');
            found record;
        BEGIN
            SELECT d.oid INTO database_oid FROM pg_catalog.pg_database d WHERE d.datname = database_name;
            LOOP
                stem := CASE
                    WHEN attempt = 0 AND database_name ~ '^[a-z0-9_]+$' AND octet_length(database_name) <= 46 THEN database_name
                    WHEN attempt <= 1 THEN 'db' || database_oid
                    ELSE 'db' || database_oid || '_' || attempt END;
                reader_group := 'bookshelf_' || stem || '_reader';
                editor_group := 'bookshelf_' || stem || '_editor';
                EXIT WHEN NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname IN (reader_group, editor_group));
                attempt := attempt + 1;
            END LOOP;
            EXECUTE format('CREATE ROLE %I NOLOGIN', reader_group);
            EXECUTE format('CREATE ROLE %I NOLOGIN', editor_group);
            EXECUTE format('COMMENT ON ROLE %I IS %L', reader_group, 'Bookshelf readers of the catalog in database ' || database_name);
            EXECUTE format('COMMENT ON ROLE %I IS %L', editor_group, 'Bookshelf editors of the catalog in database ' || database_name);

            FOR found IN
                WITH held AS (
                    SELECT a.grantee, a.privilege_type, 'SCHEMA bookshelf' AS target
                    FROM pg_catalog.pg_namespace n, aclexplode(n.nspacl) a WHERE n.nspname = 'bookshelf'
                    UNION ALL
                    SELECT a.grantee, a.privilege_type, 'TABLE ' || c.oid::regclass::text
                    FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace,
                         aclexplode(c.relacl) a WHERE n.nspname = 'bookshelf'
                    UNION ALL
                    SELECT a.grantee, a.privilege_type || ' (' || quote_ident(t.attname) || ')', 'TABLE ' || c.oid::regclass::text
                    FROM pg_catalog.pg_attribute t JOIN pg_catalog.pg_class c ON c.oid = t.attrelid
                         JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace,
                         aclexplode(t.attacl) a WHERE n.nspname = 'bookshelf' AND NOT t.attisdropped
                    UNION ALL
                    SELECT a.grantee, a.privilege_type, 'FUNCTION ' || p.oid::regprocedure::text
                    FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace,
                         aclexplode(p.proacl) a WHERE n.nspname = 'bookshelf')
                SELECT h.privilege_type, h.target, h.grantee::regrole::text AS old_group,
                       CASE h.grantee WHEN old_reader THEN reader_group ELSE editor_group END AS new_group
                FROM held h WHERE h.grantee IN (old_reader, old_editor)
            LOOP
                EXECUTE format('GRANT %s ON %s TO %I', found.privilege_type, found.target, found.new_group);
                EXECUTE format('REVOKE %s ON %s FROM %s', found.privilege_type, found.target, found.old_group);
            END LOOP;

            FOR found IN
                SELECT p.polname, p.polrelid::regclass::text AS target,
                       (SELECT string_agg(CASE r WHEN old_reader THEN quote_ident(reader_group)
                                                 WHEN old_editor THEN quote_ident(editor_group)
                                                 ELSE r::regrole::text END, ', ')
                        FROM unnest(p.polroles) AS r) AS roles
                FROM pg_catalog.pg_policy p JOIN pg_catalog.pg_class c ON c.oid = p.polrelid
                     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'bookshelf' AND (old_reader = ANY (p.polroles) OR old_editor = ANY (p.polroles))
            LOOP
                EXECUTE format('ALTER POLICY %I ON %s TO %s', found.polname, found.target, found.roles);
            END LOOP;

            UPDATE bookshelf.groups SET name = CASE role WHEN 'reader' THEN reader_group ELSE editor_group END;
        END $$
        """
}
