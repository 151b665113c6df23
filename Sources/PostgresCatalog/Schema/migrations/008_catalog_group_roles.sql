-- The catalog's own reader and editor groups, named after its database and recorded in
-- bookshelf.groups: the server-wide groups made an account of one catalog a reader or editor of
-- every other catalog on the server. Privileges, policies and members move to the new groups.

CREATE TABLE bookshelf.groups (
    role text PRIMARY KEY CHECK (role IN ('reader', 'editor')),
    name text NOT NULL UNIQUE
);
REVOKE ALL ON bookshelf.groups FROM PUBLIC;

DO $$
DECLARE
    database_name text := current_database();
    database_oid oid;
    attempt integer := 0;
    stem text;
    reader_group text;
    editor_group text;
    old_reader oid := to_regrole('bookshelf_reader');
    old_editor oid := to_regrole('bookshelf_editor');
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
    INSERT INTO bookshelf.groups (role, name) VALUES ('reader', reader_group), ('editor', editor_group);

    -- Every privilege the server-wide groups hold in this schema (on it, its tables,
    -- their columns, its functions) moves to this catalog's group of the same kind.
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
    EXECUTE format('GRANT SELECT ON bookshelf.groups TO %I, %I', reader_group, editor_group);

    -- Every policy naming a server-wide group names this catalog's instead.
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

    -- Each account joins the group its row names, whatever another catalog made of it.
    FOR found IN
        SELECT a.name, a.role FROM bookshelf.accounts a JOIN pg_catalog.pg_roles r ON r.rolname = a.name
    LOOP
        EXECUTE format('GRANT %I TO %I', CASE found.role WHEN 'editor' THEN editor_group ELSE reader_group END, found.name);
    END LOOP;
END $$;
