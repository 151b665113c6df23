/// The catalog's schema, as numbered migrations. `PostgresSetup.migrate()` applies the ones
/// a database lacks, in order, each in the transaction that records its number in
/// `bookshelf.schema_version`.
///
/// Who sees and edits what is enforced here, by the database, so it holds against
/// hand-written SQL too:
/// - every account is a login role, member of this catalog's NOLOGIN reader or editor group
///   (named in `bookshelf.groups`, since version 8), with its role and scope recorded in
///   `bookshelf.accounts`. One login role may be an account of several catalogs on a server,
///   with a different role and scope in each;
/// - a policy shows a role only the books of its own scope. It keys on `current_user`, which
///   a role cannot change (it may only SET ROLE to a group, which has no account and so sees
///   nothing); a session variable would have been forgeable;
/// - only editors hold UPDATE, and only on the editable columns; a trigger makes every
///   update move the revision up by exactly one and keep id and scope;
/// - CHECK constraints apply `BookValidation`'s rules, so a bypassed client cannot store
///   an empty title or control characters;
/// - version 1 notified a per-scope channel with "<id> <revision>"; any role that could
///   name a scope could listen. Version 2 notifies one channel with no payload, and each
///   client asks, through row-level security, which books changed since its last snapshot.
/// - version 5 widens the CHECKs to every character `TerminalSafety` refuses (U+061C,
///   U+200E/F and U+2028/9 were missing). NOT VALID: rows stored before stay (the screen and
///   the command line show them harmlessly); every new or changed row is checked.
/// - version 6 re-derives every book's search columns after `bookshelf.folding` is written
///   again: letters that do not decompose ("ø", "ł", "æ", "ß") now fold as transliterated.
/// - version 7 generates the CHECKs from `BookValidation` (`PostgresValidityChecks`): titles
///   and authors bounded in UTF-8 bytes, and a title needs a character that is not whitespace
///   or invisible (U+200B, U+FEFF, U+FFFE…). NOT VALID, as in version 5.
/// - version 8 gives the catalog group roles of its own (`bookshelf.groups`). The groups
///   `bookshelf_reader` and `bookshelf_editor` of versions 1 to 7 belong to the whole server,
///   so making alice a reader in one database made her a reader in every other catalog there.
/// - version 9 keeps an account's group in step with the role its row names, however the row
///   is changed (setup, or an administrator's UPDATE by hand).
/// - version 10 makes Japanese, Chinese and Korean searches walk a partial title index of the
///   books holding such characters, and bounds their count by the rarest character.
/// - version 11 adds the fields real catalogs keep (ISBN, year, publisher, series and index,
///   tags, notes) with CHECKs of their rules, to books and to their history, and returns them
///   from the search function (`PostgresDetailsSchema`).
/// - version 12 searches the series, the publisher and the tags (words the database derives,
///   as for titles) and finds a book by its ISBN (`PostgresDetailsSearchSchema`).
/// - version 13 keeps the word indexes without pending lists and the word index's statistics
///   ten times as long, so a search costs the same after many saves and a rare word is counted
///   instead of walked (`PostgresSteadySearchSchema`).
/// - version 14 walks a rank spread thin through the title order further before reading its
///   candidates, and gives the search the memory to keep its bitmaps exact
///   (`PostgresSparseRankSchema`).
/// - version 15 reads a rank with few candidates from them at once, and walks a sparse one no
///   further than its candidates would cost (`PostgresRankCostSchema`).
enum PostgresSchema {
    static let latestVersion = 15

    /// Migrations that `PostgresSetup.migrate()` precedes by writing `bookshelf.folding` again
    /// from `SearchFolding`, because `SearchTerms`' folding changed.
    static let refoldingVersions: Set<Int> = [6]

    /// Migrations that `PostgresSetup.migrate()` follows, once committed, by an ANALYZE of the
    /// books, because they changed a statistics target.
    static let analyzedAfterCommit: Set<Int> = [PostgresSteadySearchSchema.version]

    /// A migration's SQL: constant text, or text generated from the app's own rules (constants
    /// and escapes only, never stored or user text).
    enum Script {
        case constant(StaticString)
        case generated(String)
    }

    static func migration(to version: Int) -> Script {
        switch version {
        case 1: .constant(version1)
        case 2: .constant(version2)
        case 3: .constant(version3)
        case 4: .constant(version4)
        case 5: .constant(version5)
        case 6: .constant(version6)
        case 7: .generated(PostgresValidityChecks.replacingConstraints)
        case 8: .constant(version8)
        case 9: .constant(version9)
        case 10: .constant(version10)
        case 11: .generated(PostgresDetailsSchema.migration)
        case 12: .constant(PostgresDetailsSearchSchema.migration)
        case 13: .generated(PostgresSteadySearchSchema.migration)
        case 14: .generated(PostgresSparseRankSchema.migration)
        case 15: .generated(PostgresRankCostSchema.migration)
        default: fatalError("no migration to version \(version)")
        }
    }

    private static let version1: StaticString = #"""
        CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA bookshelf;

        -- Roles belong to the whole cluster: another database's setup may create them at the
        -- same moment, so losing that race is fine.
        DO $$ BEGIN
            BEGIN
                CREATE ROLE bookshelf_reader NOLOGIN;
            EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
            END;
            BEGIN
                CREATE ROLE bookshelf_editor NOLOGIN;
            EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
            END;
        END $$;

        CREATE TABLE bookshelf.accounts (
            name text PRIMARY KEY,
            role text NOT NULL CHECK (role IN ('reader', 'editor')),
            scope text NOT NULL CHECK (scope <> '')
        );

        CREATE TABLE bookshelf.books (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            scope text NOT NULL,
            title text NOT NULL CONSTRAINT books_title_valid CHECK (
                char_length(title) BETWEEN 1 AND 500 AND title = btrim(title)
                AND title !~ '[\x01-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]'),
            author text NOT NULL DEFAULT '' CONSTRAINT books_author_valid CHECK (
                char_length(author) <= 200
                AND author !~ '[\x01-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]'),
            revision bigint NOT NULL DEFAULT 1 CHECK (revision > 0),
            -- Derived in Swift (BookIndexText): folded title for ordering, folded tokens for matching.
            title_sort text COLLATE "C" NOT NULL,
            title_words text NOT NULL,
            author_words text NOT NULL,
            search_words text GENERATED ALWAYS AS (title_words || E'\n' || author_words) STORED
        );
        CREATE INDEX books_by_title ON bookshelf.books (scope, title_sort, id);

        -- The trigram operator class lives wherever pg_trgm was installed.
        DO $$ DECLARE trgm_schema name; BEGIN
            SELECT n.nspname INTO trgm_schema FROM pg_extension e
                JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
            EXECUTE format('CREATE INDEX books_search_words ON bookshelf.books USING gin (search_words %I.gin_trgm_ops)', trgm_schema);
        END $$;

        CREATE TABLE bookshelf.saves (
            operation uuid PRIMARY KEY,
            book_id bigint NOT NULL,
            revision bigint NOT NULL,
            saved_by text NOT NULL DEFAULT current_user,
            saved_at timestamptz NOT NULL DEFAULT now()
        );

        CREATE FUNCTION bookshelf.guard_book_update() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.id <> OLD.id OR NEW.scope <> OLD.scope OR NEW.revision <> OLD.revision + 1 THEN
                RAISE EXCEPTION 'a book update must keep id and scope and move the revision up by one'
                    USING ERRCODE = 'check_violation', CONSTRAINT = 'books_revision_step';
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER books_guard BEFORE UPDATE ON bookshelf.books
            FOR EACH ROW EXECUTE FUNCTION bookshelf.guard_book_update();

        CREATE FUNCTION bookshelf.notify_book_saved() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('bookshelf_' || md5(NEW.scope), NEW.id || ' ' || NEW.revision);
            RETURN NULL;
        END $$;
        CREATE TRIGGER books_notify AFTER UPDATE ON bookshelf.books
            FOR EACH ROW EXECUTE FUNCTION bookshelf.notify_book_saved();

        ALTER TABLE bookshelf.accounts ENABLE ROW LEVEL SECURITY;
        ALTER TABLE bookshelf.books ENABLE ROW LEVEL SECURITY;
        ALTER TABLE bookshelf.saves ENABLE ROW LEVEL SECURITY;

        CREATE POLICY accounts_own ON bookshelf.accounts FOR SELECT
            TO bookshelf_reader, bookshelf_editor USING (name = current_user);
        CREATE POLICY books_in_scope ON bookshelf.books FOR SELECT
            TO bookshelf_reader, bookshelf_editor
            USING (scope = (SELECT a.scope FROM bookshelf.accounts a WHERE a.name = current_user));
        CREATE POLICY books_edit_in_scope ON bookshelf.books FOR UPDATE TO bookshelf_editor
            USING (scope = (SELECT a.scope FROM bookshelf.accounts a
                            WHERE a.name = current_user AND a.role = 'editor'))
            WITH CHECK (scope = (SELECT a.scope FROM bookshelf.accounts a
                                 WHERE a.name = current_user AND a.role = 'editor'));
        -- A save's record is visible to whoever can see its book (any session of the scope
        -- may reconcile an operation id it was handed); only its own author can write one.
        CREATE POLICY saves_of_visible_books ON bookshelf.saves FOR SELECT
            TO bookshelf_reader, bookshelf_editor
            USING (EXISTS (SELECT 1 FROM bookshelf.books b WHERE b.id = book_id));
        CREATE POLICY saves_written_by_self ON bookshelf.saves FOR INSERT TO bookshelf_editor
            WITH CHECK (saved_by = current_user);

        -- Word search. A policy's filter runs before any non-leakproof condition of the query,
        -- so LIKE could never use the trigram index through row-level security: every search
        -- would read the whole table. This function runs as the owner instead and applies the
        -- scope itself, taken from session_user (the role that signed in, which the caller
        -- cannot change; a definer function cannot see the caller's current_user). Its SQL
        -- is fixed text; patterns arrive as values ($1[i]), never as SQL.
        CREATE FUNCTION bookshelf.search_books(patterns text[], first_at_start text, page_limit bigint, page_offset bigint)
        RETURNS TABLE (total bigint, id bigint, title text, revision bigint, author text)
        LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
        DECLARE
            account_scope text;
            in_text text := 'true';
            in_title text := 'true';
        BEGIN
            SELECT a.scope INTO account_scope FROM bookshelf.accounts a WHERE a.name = session_user::text;
            IF account_scope IS NULL OR coalesce(array_length(patterns, 1), 0) = 0 THEN
                RETURN;
            END IF;
            FOR i IN 1 .. array_length(patterns, 1) LOOP
                in_text := in_text || format(' AND b.search_words LIKE $1[%s] ESCAPE ''\''', i);
                in_title := in_title || format(' AND b.title_words LIKE $1[%s] ESCAPE ''\''', i);
            END LOOP;
            RETURN QUERY EXECUTE format($query$
                WITH matches AS MATERIALIZED (
                    SELECT b.id, b.title, b.revision, b.author, b.title_sort,
                        CASE WHEN %s THEN CASE WHEN b.title_words LIKE $2 ESCAPE '\' THEN 0 ELSE 1 END ELSE 2 END AS rank
                    FROM bookshelf.books b
                    WHERE b.scope = $5 AND %s)
                SELECT t.total, p.id, p.title, p.revision, p.author
                FROM (SELECT count(*) AS total FROM matches) AS t
                LEFT JOIN LATERAL (
                    SELECT * FROM matches m ORDER BY m.rank, m.title_sort, m.id LIMIT $3 OFFSET $4) AS p ON true
                ORDER BY p.rank, p.title_sort, p.id
                $query$, in_title, in_text)
            USING patterns, first_at_start, page_limit, page_offset, account_scope;
        END $$;
        REVOKE ALL ON FUNCTION bookshelf.search_books(text[], text, bigint, bigint) FROM PUBLIC;
        GRANT EXECUTE ON FUNCTION bookshelf.search_books(text[], text, bigint, bigint)
            TO bookshelf_reader, bookshelf_editor;

        REVOKE ALL ON ALL TABLES IN SCHEMA bookshelf FROM PUBLIC;
        GRANT USAGE ON SCHEMA bookshelf TO bookshelf_reader, bookshelf_editor;
        GRANT SELECT ON bookshelf.accounts, bookshelf.books, bookshelf.saves
            TO bookshelf_reader, bookshelf_editor;
        GRANT UPDATE (title, author, revision, title_sort, title_words, author_words)
            ON bookshelf.books TO bookshelf_editor;
        GRANT INSERT ON bookshelf.saves TO bookshelf_editor;
        """#

    /// Search at typing speed (plans and figures: `PostgresSearchPlans.swift`), payload-free
    /// notifications with change detection by transaction snapshot.
    private static let version2: StaticString = #"""
        -- Notifications told every role that could name a scope the ids and revisions it
        -- saved. Now one channel says only "something changed"; a client then asks for the
        -- rows changed since its last snapshot, which row-level security filters.
        DROP TRIGGER books_notify ON bookshelf.books;
        DROP FUNCTION bookshelf.notify_book_saved();
        -- Existing rows count as changed before any snapshot (xid 0); no table rewrite.
        ALTER TABLE bookshelf.books ADD COLUMN changed_in xid8 NOT NULL DEFAULT '0';
        ALTER TABLE bookshelf.books ALTER COLUMN changed_in SET DEFAULT pg_current_xact_id();
        CREATE INDEX books_by_change ON bookshelf.books (scope, changed_in);

        CREATE OR REPLACE FUNCTION bookshelf.guard_book_update() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.id <> OLD.id OR NEW.scope <> OLD.scope OR NEW.revision <> OLD.revision + 1 THEN
                RAISE EXCEPTION 'a book update must keep id and scope and move the revision up by one'
                    USING ERRCODE = 'check_violation', CONSTRAINT = 'books_revision_step';
            END IF;
            NEW.changed_in := pg_current_xact_id();
            RETURN NEW;
        END $$;

        CREATE FUNCTION bookshelf.notify_books_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('bookshelf_changed', '');
            RETURN NULL;
        END $$;
        CREATE TRIGGER books_changed AFTER INSERT OR UPDATE ON bookshelf.books
            FOR EACH STATEMENT EXECUTE FUNCTION bookshelf.notify_books_changed();

        DROP FUNCTION bookshelf.search_books(text[], text, bigint, bigint);
        DROP INDEX bookshelf.books_search_words;
        -- Every token's prefixes up to 12 characters as lexemes, so that a query word is one exact
        -- GIN entry (no partial-match scan over many lexemes); longer words are rechecked by LIKE.
        CREATE FUNCTION bookshelf.word_prefixes(words text) RETURNS tsvector
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog AS $$
            SELECT array_to_tsvector(coalesce(array_agg(DISTINCT left(t.word, n.length)), '{}'))
            FROM unnest(string_to_array(words, ' ')) AS t(word)
            CROSS JOIN LATERAL generate_series(1, least(char_length(t.word), 12)) AS n(length)
        $$;
        -- Expression indexes, not stored columns: the vectors are large and the table's pages
        -- must stay in memory for the rows a page shows.
        CREATE INDEX books_title_vector ON bookshelf.books USING gin (bookshelf.word_prefixes(title_words));
        CREATE INDEX books_search_vector ON bookshelf.books USING gin (bookshelf.word_prefixes(title_words || author_words));
        -- Titles whose folded text does not begin with their first word ("'Salem's Lot",
        -- "¿Qué?"): the few rank-0 matches that the title order does not keep together.
        CREATE INDEX books_odd_title_start ON bookshelf.books (scope, title_words text_pattern_ops) INCLUDE (title_sort, id)
            WHERE NOT starts_with(title_sort, split_part(ltrim(title_words, ' '), ' ', 1) COLLATE "C");
        DROP INDEX bookshelf.books_by_title;
        CREATE INDEX books_by_title ON bookshelf.books (scope, title_sort, id) INCLUDE (title_words, search_words);

        -- The planner's estimate of a scope's books matching a word query (NULL: all of them).
        -- EXPLAIN needs a volatile function; it reads no rows.
        CREATE FUNCTION bookshelf.estimated_candidates(account_scope text, words tsquery) RETURNS bigint
        LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
        DECLARE
            plan json;
        BEGIN
            EXECUTE 'EXPLAIN (FORMAT JSON) SELECT 1 FROM bookshelf.books b WHERE b.scope = $1'
                    || CASE WHEN words IS NULL THEN '' ELSE ' AND bookshelf.word_prefixes(b.title_words || b.author_words) @@ $2' END
                INTO plan USING account_scope, words;
            RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
        END $$;
        REVOKE ALL ON FUNCTION bookshelf.estimated_candidates(text, tsquery) FROM PUBLIC;

        CREATE FUNCTION bookshelf.search_page(
            patterns text[], first_at_start text, page_limit integer,
            after_rank integer, after_sort text, after_id bigint, count_limit integer, words tsquery, title_start text)
        RETURNS TABLE (total bigint, total_is_estimate boolean, id bigint, title text, revision bigint, author text, rank integer, title_sort text)
        LANGUAGE plpgsql STABLE SECURITY DEFINER
        SET search_path = pg_catalog, pg_temp
        SET enable_seqscan = off SET jit = off SET max_parallel_workers_per_gather = 0
        AS $$
        DECLARE
            walk_rows constant integer := 2000;
            -- Up to this many matches are ranked and ordered all at once.
            few_rows constant integer := 1000;
            -- Word queries whose estimated candidates exceed this are not counted.
            counted_rows constant integer := 2000;
            estimate bigint;
            is_estimate boolean := false;
            found record;
            paged boolean := false;
            page_ids bigint[] := '{}';
            page_ranks integer[] := '{}';
            page_keys text[] := '{}';
            account_scope text;
            word_count integer := coalesce(array_length(patterns, 1), 0);
            all_text text := 'true';
            all_title text := 'true';
            rank_of text := '0';
            tiers text[];
            candidates text[];
            counted bigint;
            wanted integer := page_limit;
            got integer;
            from_rank integer := coalesce(after_rank, 0);
            keyset text;
            walk_end_sort text;
            walk_end_id bigint;
            page_rows text := 'SELECT $9::bigint, $11, o.id, o.title, o.revision, o.author, %s, o.title_sort::text FROM (%s) AS k JOIN bookshelf.books o ON o.id = k.id ORDER BY o.title_sort, o.id';
        BEGIN
            SELECT a.scope INTO account_scope FROM bookshelf.accounts a WHERE a.name = session_user::text;
            IF account_scope IS NULL THEN
                RETURN;
            END IF;
            FOR i IN 1 .. word_count LOOP
                all_text := all_text || format(' AND b.search_words LIKE $1[%s]', i);
                all_title := all_title || format(' AND b.title_words LIKE $1[%s]', i);
            END LOOP;
            IF word_count > 0 THEN
                rank_of := format('CASE WHEN %s THEN CASE WHEN b.title_words LIKE $2 THEN 0 ELSE 1 END ELSE 2 END', all_title);
            END IF;

            -- The total. Listing a scope counts its title index (no table rows) up to
            -- count_limit + 1. A word query counts only when the planner's estimate of its
            -- candidates (from the word index's statistics) is small, because counting reads a
            -- table row per match; past that the estimate is the answer, labelled as one.
            IF word_count = 0 THEN
                SELECT count(*) INTO counted FROM (SELECT 1 FROM bookshelf.books b
                    WHERE b.scope = account_scope LIMIT count_limit + 1) AS m;
                IF counted > count_limit THEN
                    estimate := greatest(bookshelf.estimated_candidates(account_scope, NULL), counted);
                END IF;
            ELSE
                estimate := bookshelf.estimated_candidates(account_scope, words);
                IF estimate <= counted_rows THEN
                    -- Counting reads every match, so the same pass ranks them and keeps the
                    -- page: one read of the table rows, whatever the page.
                    FOR found IN EXECUTE format(
                        'WITH m AS MATERIALIZED (
                            SELECT b.id, %s AS rank, b.title_sort::text AS sort_key FROM bookshelf.books b
                            WHERE b.scope = $3 AND bookshelf.word_prefixes(b.title_words || b.author_words) @@ $5
                            AND %s LIMIT $4)
                         SELECT n.total, p.id, p.rank, p.sort_key
                         FROM (SELECT count(*) AS total FROM m) AS n
                         LEFT JOIN LATERAL (SELECT * FROM m WHERE %s ORDER BY m.rank, m.sort_key COLLATE "C", m.id LIMIT $6) AS p ON true',
                        rank_of, all_text,
                        CASE WHEN after_sort IS NULL THEN 'true' ELSE '(m.rank, m.sort_key COLLATE "C", m.id) > ($9, $7, $8)' END)
                        USING patterns, first_at_start, account_scope, count_limit + 1, words, page_limit, after_sort, after_id, from_rank
                    LOOP
                        counted := found.total;
                        EXIT WHEN counted > count_limit;
                        IF found.id IS NOT NULL THEN
                            page_ids := page_ids || found.id;
                            page_ranks := page_ranks || found.rank;
                            page_keys := page_keys || found.sort_key;
                        END IF;
                    END LOOP;
                    IF counted <= count_limit THEN
                        RETURN QUERY SELECT counted, false, o.id, o.title, o.revision, o.author, r.rank, r.sort_key
                            FROM unnest(page_ids, page_ranks, page_keys) WITH ORDINALITY AS r(id, rank, sort_key, n)
                            JOIN bookshelf.books o ON o.id = r.id ORDER BY r.n;
                        GET DIAGNOSTICS got = ROW_COUNT;
                        wanted := wanted - got;
                        paged := true;
                    END IF;
                    estimate := NULL;
                END IF;
            END IF;
            IF estimate IS NOT NULL THEN
                is_estimate := true;
                counted := round(estimate, 2 - length(estimate::text));
            END IF;

            IF counted = 0 OR paged THEN
                NULL;
            ELSIF NOT is_estimate AND counted <= few_rows THEN
                -- Few matches: rank and order all of them.
                RETURN QUERY EXECUTE format(
                    'SELECT $9::bigint, $12, r.id, r.title, r.revision, r.author, r.rank, r.title_sort FROM (
                        SELECT b.id, b.title, b.revision, b.author, %s AS rank, b.title_sort::text AS title_sort
                        FROM bookshelf.books b WHERE b.scope = $3 AND %s AND %s OFFSET 0) AS r
                     WHERE %s ORDER BY r.rank, r.title_sort COLLATE "C", r.id LIMIT $4',
                    rank_of, CASE WHEN word_count = 0 THEN 'true' ELSE 'bookshelf.word_prefixes(b.title_words || b.author_words) @@ $10' END, all_text,
                    CASE WHEN after_sort IS NULL THEN 'true' ELSE '(r.rank, r.title_sort COLLATE "C", r.id) > ($11, $5, $6)' END)
                    USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, NULL::text, NULL::bigint, counted,
                          words, from_rank, is_estimate;
                GET DIAGNOSTICS got = ROW_COUNT;
                wanted := wanted - got;
            ELSE
                -- Many matches: each rank in title order. A bounded walk of the title index (which
                -- holds the words, so no table rows are read) fills the page when the rank is dense;
                -- otherwise the rest of the rank comes through the word indexes.
                IF word_count = 0 THEN
                    tiers := ARRAY['true', NULL, NULL];
                    candidates := ARRAY['true', NULL, NULL];
                ELSE
                    tiers := ARRAY[
                        all_title || ' AND b.title_words LIKE $2',
                        all_title || ' AND NOT b.title_words LIKE $2',
                        all_text || ' AND NOT (' || all_title || ')'];
                    candidates := ARRAY[NULL, 'bookshelf.word_prefixes(b.title_words) @@ $10', 'bookshelf.word_prefixes(b.title_words || b.author_words) @@ $10'];
                END IF;
                FOR tier IN from_rank .. 2 LOOP
                    EXIT WHEN wanted <= 0;
                    CONTINUE WHEN tiers[tier + 1] IS NULL;
                    keyset := CASE WHEN tier = from_rank AND after_sort IS NOT NULL
                                   THEN ' AND (b.title_sort, b.id) > ($5, $6)' ELSE '' END;
                    IF tier = 0 AND word_count > 0 THEN
                        -- Titles that begin with the first word sit together in title order
                        -- (title_start: the first query token as a prefix of the sort key), so
                        -- rank 0 is a range of the title index read in order, plus the few
                        -- titles whose sort key starts elsewhere (books_odd_title_start).
                        RETURN QUERY EXECUTE format(page_rows, 0, format(
                            'SELECT s.id FROM (
                                (SELECT b.id, b.title_sort FROM bookshelf.books b
                                 WHERE b.scope = $3 AND b.title_sort LIKE $12%1$s AND %2$s AND %3$s
                                 ORDER BY b.title_sort, b.id LIMIT $4)
                                UNION ALL
                                (SELECT b.id, b.title_sort FROM bookshelf.books b
                                 WHERE b.scope = $3 AND NOT %2$s AND b.title_words LIKE $2%1$s AND %3$s)) AS s
                             ORDER BY s.title_sort COLLATE "C", s.id LIMIT $4',
                            keyset, 'starts_with(b.title_sort, split_part(ltrim(b.title_words, '' ''), '' '', 1) COLLATE "C")',
                            tiers[1]))
                            USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, NULL::text, NULL::bigint,
                                  counted, NULL::tsquery, is_estimate, title_start;
                        GET DIAGNOSTICS got = ROW_COUNT;
                        wanted := wanted - got;
                        CONTINUE;
                    END IF;
                    EXECUTE format('SELECT b.title_sort, b.id FROM bookshelf.books b WHERE b.scope = $3%s
                                    ORDER BY b.title_sort, b.id OFFSET $4 LIMIT 1', keyset)
                        INTO walk_end_sort, walk_end_id USING patterns, first_at_start, account_scope, walk_rows - 1, after_sort, after_id;
                    RETURN QUERY EXECUTE format(page_rows, tier, format(
                        'SELECT b.id FROM bookshelf.books b WHERE b.scope = $3%s%s AND %s ORDER BY b.title_sort, b.id LIMIT $4',
                        keyset, CASE WHEN walk_end_sort IS NULL THEN '' ELSE ' AND (b.title_sort, b.id) <= ($7, $8)' END,
                        tiers[tier + 1]))
                        USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, walk_end_sort, walk_end_id, counted, NULL::tsquery, is_estimate;
                    GET DIAGNOSTICS got = ROW_COUNT;
                    wanted := wanted - got;
                    CONTINUE WHEN wanted <= 0 OR walk_end_sort IS NULL;
                    RETURN QUERY EXECUTE format(page_rows, tier, format(
                        'SELECT r.id FROM (SELECT b.id, b.title_sort FROM bookshelf.books b
                         WHERE b.scope = $3 AND (b.title_sort, b.id) > ($7, $8) AND %s AND %s OFFSET 0) AS r
                         ORDER BY r.title_sort COLLATE "C", r.id LIMIT $4', candidates[tier + 1], tiers[tier + 1]))
                        USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, walk_end_sort, walk_end_id, counted, words, is_estimate;
                    GET DIAGNOSTICS got = ROW_COUNT;
                    wanted := wanted - got;
                END LOOP;
            END IF;
            IF wanted = page_limit THEN
                RETURN QUERY SELECT counted, is_estimate, NULL::bigint, NULL::text, NULL::bigint, NULL::text, NULL::integer, NULL::text;
            END IF;
        END $$;
        REVOKE ALL ON FUNCTION bookshelf.search_page(text[], text, integer, integer, text, bigint, integer, tsquery, text) FROM PUBLIC;
        GRANT EXECUTE ON FUNCTION bookshelf.search_page(text[], text, integer, integer, text, bigint, integer, tsquery, text)
            TO bookshelf_reader, bookshelf_editor;
        """#

    /// The database derives the search columns of an edited book itself, so an editor
    /// writing SQL by hand cannot make a book unsearchable (or searchable under words it does
    /// not contain). `bookshelf.folding` is written by `PostgresSetup.migrate()` right after
    /// this script, from `SearchFolding` (Swift's own rules, one scalar at a time).
    private static let version3: StaticString = #"""
        CREATE TABLE bookshelf.folding (
            code integer PRIMARY KEY,
            kind "char" NOT NULL CHECK (kind IN ('w', 'i', 'x', 'X', 's')),
            folded text,
            folded_alone text
        );

        -- Title or author as SearchTerms sees it: the folded text in NFC (the title's sort key)
        -- and its tokens, each preceded by one space (what BookIndexText stores).
        CREATE FUNCTION bookshelf.index_text(source text, OUT sort_key text, OUT words text)
        LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
        DECLARE
            piece record;
            token text;
            token_is_ideograph boolean := false;
            -- A zero-width joiner, or the first of two regional indicators (a flag), makes the
            -- next character part of the same grapheme, so of the same token, as in Swift.
            joins_next boolean := false;
            folded_text text := '';
            tokens text[] := '{}';
        BEGIN
            FOR piece IN
                SELECT CASE WHEN c.n = 1 AND f.kind = 'X' THEN 'w' WHEN c.n = 1 AND f.kind = 'x' THEN 's'
                            ELSE coalesce(f.kind, 's') END AS kind,
                       CASE WHEN c.n = 1 AND f.kind IN ('x', 'X') THEN coalesce(f.folded_alone, c.ch)
                            ELSE coalesce(f.folded, c.ch) END AS folded,
                       ascii(c.ch) AS code
                FROM unnest(regexp_split_to_array(source, '')) WITH ORDINALITY AS c(ch, n)
                LEFT JOIN bookshelf.folding AS f ON f.code = ascii(c.ch)
                ORDER BY c.n
            LOOP
                folded_text := folded_text || piece.folded;
                IF joins_next AND token IS NOT NULL AND piece.kind IN ('i', 'w') THEN
                    token := token || piece.folded;
                    joins_next := false;
                    CONTINUE;
                END IF;
                joins_next := piece.code = 8205 OR (piece.code BETWEEN 127462 AND 127487 AND NOT joins_next);
                IF piece.kind IN ('x', 'X') THEN
                    -- Part of the character before: of its token, if it is in one.
                    IF token IS NOT NULL THEN token := token || piece.folded; END IF;
                ELSIF piece.kind = 'i' THEN
                    IF token IS NOT NULL THEN tokens := tokens || token; END IF;
                    token := piece.folded;
                    token_is_ideograph := true;
                ELSIF piece.kind = 'w' THEN
                    IF token IS NOT NULL AND token_is_ideograph THEN
                        tokens := tokens || token;
                        token := NULL;
                    END IF;
                    token := coalesce(token, '') || piece.folded;
                    token_is_ideograph := false;
                ELSE
                    IF token IS NOT NULL THEN tokens := tokens || token; END IF;
                    token := NULL;
                    token_is_ideograph := false;
                END IF;
            END LOOP;
            IF token IS NOT NULL THEN tokens := tokens || token; END IF;
            sort_key := normalize(folded_text, NFC);
            words := ' ' || array_to_string(tokens, ' ');
        END $$;

        CREATE FUNCTION bookshelf.derive_search_columns() RETURNS trigger
        LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
        DECLARE
            title_text record;
        BEGIN
            title_text := bookshelf.index_text(NEW.title);
            NEW.title_sort := title_text.sort_key;
            NEW.title_words := title_text.words;
            NEW.author_words := (bookshelf.index_text(NEW.author)).words;
            RETURN NEW;
        END $$;
        -- Updates only: books arrive through setup (COPY, as the owner), which derives them
        -- with the same rules in Swift; editors can only update.
        CREATE TRIGGER books_derive BEFORE UPDATE OF title, author ON bookshelf.books
            FOR EACH ROW EXECUTE FUNCTION bookshelf.derive_search_columns();

        REVOKE UPDATE (title_sort, title_words, author_words) ON bookshelf.books FROM bookshelf_editor;
        GRANT SELECT ON bookshelf.folding TO bookshelf_reader, bookshelf_editor;
        """#

    /// Revision history: every committed revision of every book, written by the database
    /// itself (a trigger), so a save by hand-written SQL is recorded too. The account is
    /// `session_user`, the role that signed in, which no one can forge; imports (by setup)
    /// record none. A save's operation id is in `bookshelf.saves`, keyed by book and revision.
    /// Books already in the catalog start their history at their current revision.
    private static let version4: StaticString = #"""
        CREATE TABLE bookshelf.book_revisions (
            book_id bigint NOT NULL,
            revision bigint NOT NULL,
            scope text NOT NULL,
            title text NOT NULL,
            author text NOT NULL,
            account text,
            saved_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (book_id, revision)
        );
        INSERT INTO bookshelf.book_revisions (book_id, revision, scope, title, author, account)
            SELECT id, revision, scope, title, author, NULL FROM bookshelf.books;

        -- Runs as the owner: accounts may not write history themselves, only cause it.
        CREATE FUNCTION bookshelf.record_revisions() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
        BEGIN
            INSERT INTO bookshelf.book_revisions (book_id, revision, scope, title, author, account)
            SELECT n.id, n.revision, n.scope, n.title, n.author,
                   CASE WHEN TG_OP = 'UPDATE' THEN session_user::text END
            FROM changed_rows AS n;
            RETURN NULL;
        END $$;
        REVOKE ALL ON FUNCTION bookshelf.record_revisions() FROM PUBLIC;
        -- Statement triggers with transition tables: a million-book COPY is one INSERT here.
        CREATE TRIGGER books_history_insert AFTER INSERT ON bookshelf.books
            REFERENCING NEW TABLE AS changed_rows
            FOR EACH STATEMENT EXECUTE FUNCTION bookshelf.record_revisions();
        CREATE TRIGGER books_history_update AFTER UPDATE ON bookshelf.books
            REFERENCING NEW TABLE AS changed_rows
            FOR EACH STATEMENT EXECUTE FUNCTION bookshelf.record_revisions();

        ALTER TABLE bookshelf.book_revisions ENABLE ROW LEVEL SECURITY;
        CREATE POLICY revisions_in_scope ON bookshelf.book_revisions FOR SELECT
            TO bookshelf_reader, bookshelf_editor
            USING (scope = (SELECT a.scope FROM bookshelf.accounts a WHERE a.name = current_user));
        REVOKE ALL ON bookshelf.book_revisions FROM PUBLIC;
        GRANT SELECT ON bookshelf.book_revisions TO bookshelf_reader, bookshelf_editor;
        """#

    private static let version5: StaticString = #"""
        ALTER TABLE bookshelf.books DROP CONSTRAINT books_title_valid;
        ALTER TABLE bookshelf.books ADD CONSTRAINT books_title_valid CHECK (
            char_length(title) BETWEEN 1 AND 500 AND title = btrim(title)
            AND title !~ '[\x01-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]') NOT VALID;
        ALTER TABLE bookshelf.books DROP CONSTRAINT books_author_valid;
        ALTER TABLE bookshelf.books ADD CONSTRAINT books_author_valid CHECK (
            char_length(author) <= 200
            AND author !~ '[\x01-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]') NOT VALID;
        """#

    /// Runs after `PostgresSetup.migrate()` has written `bookshelf.folding` again. The update
    /// touches only the derived columns, so the triggers (revision, history, notification) are
    /// off for it: no book gains a revision. The CHECKs are added again NOT VALID, as version 5
    /// left them, so rows stored before them can be updated.
    private static let version6: StaticString = #"""
        ALTER TABLE bookshelf.books DROP CONSTRAINT books_title_valid;
        ALTER TABLE bookshelf.books DROP CONSTRAINT books_author_valid;
        ALTER TABLE bookshelf.books DISABLE TRIGGER USER;
        UPDATE bookshelf.books AS b
            SET title_sort = d.title_sort, title_words = d.title_words, author_words = d.author_words
            FROM (SELECT id, (bookshelf.index_text(title)).sort_key AS title_sort,
                         (bookshelf.index_text(title)).words AS title_words,
                         (bookshelf.index_text(author)).words AS author_words
                  FROM bookshelf.books) AS d
            WHERE d.id = b.id
              AND (b.title_sort, b.title_words, b.author_words) IS DISTINCT FROM (d.title_sort, d.title_words, d.author_words);
        ALTER TABLE bookshelf.books ENABLE TRIGGER USER;
        ALTER TABLE bookshelf.books ADD CONSTRAINT books_title_valid CHECK (
            char_length(title) BETWEEN 1 AND 500 AND title = btrim(title)
            AND title !~ '[\x01-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]') NOT VALID;
        ALTER TABLE bookshelf.books ADD CONSTRAINT books_author_valid CHECK (
            char_length(author) <= 200
            AND author !~ '[\x01-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]') NOT VALID;
        """#

    /// This catalog's own group roles, named after its database: `bookshelf_<database>_reader`
    /// and `_editor` when the name is lowercase letters, digits and underscores of at most 46
    /// bytes (a role name has 63), else after the database's OID (`bookshelf_db16384_reader`),
    /// skipping names a role already has (a dropped database's leftovers keep their members).
    /// The names are recorded in `bookshelf.groups`, never derived again, so renaming the
    /// database changes nothing. Every privilege and policy the server-wide groups held here
    /// moves to this catalog's groups, and every account whose login role exists joins the
    /// group its row in `bookshelf.accounts` names: the table is this catalog's record, while
    /// the server-wide membership may have been changed by another catalog's setup. The old
    /// groups keep their members, for catalogs on the server not yet at this version; here
    /// they hold nothing.
    private static let version8: StaticString = #"""
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
        """#

    /// An account's group follows its row: an administrator who changes `role` in
    /// `bookshelf.accounts` by hand (as the owner) changes what the database lets the account
    /// do, as setup does, not only what the app shows (the session reads the row). Without it a
    /// promotion by hand left the role in the reader group, without UPDATE, while the app said
    /// "editor". The function runs as whoever updates the row, a role that may grant this
    /// catalog's groups; a row whose login role is gone changes nothing more.
    private static let version9: StaticString = #"""
        CREATE FUNCTION bookshelf.account_group_follows_role() RETURNS trigger
        LANGUAGE plpgsql SET search_path = pg_catalog AS $$
        DECLARE
            granted text;
            revoked text;
        BEGIN
            IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = NEW.name) THEN
                RETURN NULL;
            END IF;
            SELECT g.name INTO granted FROM bookshelf.groups g WHERE g.role = NEW.role;
            SELECT g.name INTO revoked FROM bookshelf.groups g WHERE g.role <> NEW.role;
            EXECUTE format('GRANT %I TO %I', granted, NEW.name);
            EXECUTE format('REVOKE %I FROM %I', revoked, NEW.name);
            RETURN NULL;
        END $$;
        REVOKE ALL ON FUNCTION bookshelf.account_group_follows_role() FROM PUBLIC;
        CREATE TRIGGER accounts_group_follows_role AFTER UPDATE OF role ON bookshelf.accounts
            FOR EACH ROW WHEN (OLD.role IS DISTINCT FROM NEW.role)
            EXECUTE FUNCTION bookshelf.account_group_follows_role();
        """#

    /// Japanese, Chinese and Korean queries walk only the books that hold such characters
    /// (plans and figures: `PostgresSearchPlans.swift`). Each of those characters is a token of
    /// its own, sorted after every Latin title: a walk of the whole title index from its start
    /// met none of them, and the matches then came one table row each from the word index.
    /// Their count is bounded by the rarest character, not the planner's product of frequencies.
    /// `CREATE OR REPLACE` keeps the function's grants (since version 8, this catalog's groups).
    private static let version10: StaticString = #"""
        -- Books with a token of one character beyond ASCII (a Han, kana or Hangul character, or
        -- a lone accented letter), in title order and with their words: a walk reads no table rows.
        CREATE INDEX books_with_character_tokens ON bookshelf.books (scope, title_sort, id) INCLUDE (title_words, search_words)
            WHERE search_words ~ ' [^\x01-\x7f]([ \n]|$)';

        CREATE OR REPLACE FUNCTION bookshelf.search_page(
            patterns text[], first_at_start text, page_limit integer,
            after_rank integer, after_sort text, after_id bigint, count_limit integer, words tsquery, title_start text)
        RETURNS TABLE (total bigint, total_is_estimate boolean, id bigint, title text, revision bigint, author text, rank integer, title_sort text)
        LANGUAGE plpgsql STABLE SECURITY DEFINER
        SET search_path = pg_catalog, pg_temp
        SET enable_seqscan = off SET jit = off SET max_parallel_workers_per_gather = 0
        AS $$
        DECLARE
            walk_rows constant integer := 2000;
            -- Up to this many matches are ranked and ordered all at once.
            few_rows constant integer := 1000;
            -- Word queries whose estimated candidates exceed this are not counted.
            counted_rows constant integer := 2000;
            estimate bigint;
            is_estimate boolean := false;
            found record;
            paged boolean := false;
            page_ids bigint[] := '{}';
            page_ranks integer[] := '{}';
            page_keys text[] := '{}';
            account_scope text;
            word_count integer := coalesce(array_length(patterns, 1), 0);
            all_text text := 'true';
            all_title text := 'true';
            rank_of text := '0';
            tiers text[];
            candidates text[];
            counted bigint;
            wanted integer := page_limit;
            got integer;
            from_rank integer := coalesce(after_rank, 0);
            keyset text;
            walk_end_sort text;
            walk_end_id bigint;
            -- Empty, or the condition that restricts a walk to books_with_character_tokens.
            walk_filter text := '';
            lexeme text;
            page_rows text := 'SELECT $9::bigint, $11, o.id, o.title, o.revision, o.author, %s, o.title_sort::text FROM (%s) AS k JOIN bookshelf.books o ON o.id = k.id ORDER BY o.title_sort, o.id';
        BEGIN
            SELECT a.scope INTO account_scope FROM bookshelf.accounts a WHERE a.name = session_user::text;
            IF account_scope IS NULL THEN
                RETURN;
            END IF;
            FOR i IN 1 .. word_count LOOP
                all_text := all_text || format(' AND b.search_words LIKE $1[%s]', i);
                all_title := all_title || format(' AND b.title_words LIKE $1[%s]', i);
            END LOOP;
            -- A Han, kana or Hangul character is a token of its own (SearchTerms), so a book
            -- matching a word that holds one holds it as a one-character token: such a query
            -- walks only the books of books_with_character_tokens. The ranges are a subset of
            -- SearchTerms.isIdeographic; a character outside them walks the whole title index.
            IF EXISTS (SELECT 1 FROM unnest(patterns) AS p(pattern)
                       WHERE p.pattern ~ '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]') THEN
                walk_filter := ' AND b.search_words ~ '' [^\x01-\x7f]([ \n]|$)''';
            END IF;
            IF word_count > 0 THEN
                rank_of := format('CASE WHEN %s THEN CASE WHEN b.title_words LIKE $2 THEN 0 ELSE 1 END ELSE 2 END', all_title);
            END IF;

            -- The total. Listing a scope counts its title index (no table rows) up to
            -- count_limit + 1. A word query counts only when the planner's estimate of its
            -- candidates (from the word index's statistics) is small, because counting reads a
            -- table row per match; past that the estimate is the answer, labelled as one.
            IF word_count = 0 THEN
                SELECT count(*) INTO counted FROM (SELECT 1 FROM bookshelf.books b
                    WHERE b.scope = account_scope LIMIT count_limit + 1) AS m;
                IF counted > count_limit THEN
                    estimate := greatest(bookshelf.estimated_candidates(account_scope, NULL), counted);
                END IF;
            ELSE
                IF walk_filter = '' THEN
                    estimate := bookshelf.estimated_candidates(account_scope, words);
                ELSE
                    -- The characters of a word come together (歴 and 史 as 歴史), so the
                    -- planner's product of their frequencies is far too low and the count would
                    -- read every match. The rarest lexeme's estimate bounds the matches above.
                    FOR lexeme IN SELECT m[1] FROM regexp_matches(words::text, '(''(?:[^'']|'''')+'')', 'g') AS m LOOP
                        estimate := least(estimate, bookshelf.estimated_candidates(account_scope, lexeme::tsquery));
                    END LOOP;
                END IF;
                IF estimate <= counted_rows THEN
                    -- Counting reads every match, so the same pass ranks them and keeps the
                    -- page: one read of the table rows, whatever the page.
                    FOR found IN EXECUTE format(
                        'WITH m AS MATERIALIZED (
                            SELECT b.id, %s AS rank, b.title_sort::text AS sort_key FROM bookshelf.books b
                            WHERE b.scope = $3 AND bookshelf.word_prefixes(b.title_words || b.author_words) @@ $5
                            AND %s LIMIT $4)
                         SELECT n.total, p.id, p.rank, p.sort_key
                         FROM (SELECT count(*) AS total FROM m) AS n
                         LEFT JOIN LATERAL (SELECT * FROM m WHERE %s ORDER BY m.rank, m.sort_key COLLATE "C", m.id LIMIT $6) AS p ON true',
                        rank_of, all_text,
                        CASE WHEN after_sort IS NULL THEN 'true' ELSE '(m.rank, m.sort_key COLLATE "C", m.id) > ($9, $7, $8)' END)
                        USING patterns, first_at_start, account_scope, count_limit + 1, words, page_limit, after_sort, after_id, from_rank
                    LOOP
                        counted := found.total;
                        EXIT WHEN counted > count_limit;
                        IF found.id IS NOT NULL THEN
                            page_ids := page_ids || found.id;
                            page_ranks := page_ranks || found.rank;
                            page_keys := page_keys || found.sort_key;
                        END IF;
                    END LOOP;
                    IF counted <= count_limit THEN
                        RETURN QUERY SELECT counted, false, o.id, o.title, o.revision, o.author, r.rank, r.sort_key
                            FROM unnest(page_ids, page_ranks, page_keys) WITH ORDINALITY AS r(id, rank, sort_key, n)
                            JOIN bookshelf.books o ON o.id = r.id ORDER BY r.n;
                        GET DIAGNOSTICS got = ROW_COUNT;
                        wanted := wanted - got;
                        paged := true;
                    END IF;
                    estimate := NULL;
                END IF;
            END IF;
            IF estimate IS NOT NULL THEN
                is_estimate := true;
                counted := round(estimate, 2 - length(estimate::text));
            END IF;

            IF counted = 0 OR paged THEN
                NULL;
            ELSIF NOT is_estimate AND counted <= few_rows THEN
                -- Few matches: rank and order all of them.
                RETURN QUERY EXECUTE format(
                    'SELECT $9::bigint, $12, r.id, r.title, r.revision, r.author, r.rank, r.title_sort FROM (
                        SELECT b.id, b.title, b.revision, b.author, %s AS rank, b.title_sort::text AS title_sort
                        FROM bookshelf.books b WHERE b.scope = $3 AND %s AND %s OFFSET 0) AS r
                     WHERE %s ORDER BY r.rank, r.title_sort COLLATE "C", r.id LIMIT $4',
                    rank_of, CASE WHEN word_count = 0 THEN 'true' ELSE 'bookshelf.word_prefixes(b.title_words || b.author_words) @@ $10' END, all_text,
                    CASE WHEN after_sort IS NULL THEN 'true' ELSE '(r.rank, r.title_sort COLLATE "C", r.id) > ($11, $5, $6)' END)
                    USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, NULL::text, NULL::bigint, counted,
                          words, from_rank, is_estimate;
                GET DIAGNOSTICS got = ROW_COUNT;
                wanted := wanted - got;
            ELSE
                -- Many matches: each rank in title order. A bounded walk of the title index (which
                -- holds the words, so no table rows are read) fills the page when the rank is dense;
                -- otherwise the rest of the rank comes through the word indexes.
                IF word_count = 0 THEN
                    tiers := ARRAY['true', NULL, NULL];
                    candidates := ARRAY['true', NULL, NULL];
                ELSE
                    tiers := ARRAY[
                        all_title || ' AND b.title_words LIKE $2',
                        all_title || ' AND NOT b.title_words LIKE $2',
                        all_text || ' AND NOT (' || all_title || ')'];
                    candidates := ARRAY[NULL, 'bookshelf.word_prefixes(b.title_words) @@ $10', 'bookshelf.word_prefixes(b.title_words || b.author_words) @@ $10'];
                END IF;
                FOR tier IN from_rank .. 2 LOOP
                    EXIT WHEN wanted <= 0;
                    CONTINUE WHEN tiers[tier + 1] IS NULL;
                    keyset := CASE WHEN tier = from_rank AND after_sort IS NOT NULL
                                   THEN ' AND (b.title_sort, b.id) > ($5, $6)' ELSE '' END;
                    IF tier = 0 AND word_count > 0 THEN
                        -- Titles that begin with the first word sit together in title order
                        -- (title_start: the first query token as a prefix of the sort key), so
                        -- rank 0 is a range of the title index read in order, plus the few
                        -- titles whose sort key starts elsewhere (books_odd_title_start).
                        RETURN QUERY EXECUTE format(page_rows, 0, format(
                            'SELECT s.id FROM (
                                (SELECT b.id, b.title_sort FROM bookshelf.books b
                                 WHERE b.scope = $3 AND b.title_sort LIKE $12%1$s AND %2$s AND %3$s
                                 ORDER BY b.title_sort, b.id LIMIT $4)
                                UNION ALL
                                (SELECT b.id, b.title_sort FROM bookshelf.books b
                                 WHERE b.scope = $3 AND NOT %2$s AND b.title_words LIKE $2%1$s AND %3$s)) AS s
                             ORDER BY s.title_sort COLLATE "C", s.id LIMIT $4',
                            keyset, 'starts_with(b.title_sort, split_part(ltrim(b.title_words, '' ''), '' '', 1) COLLATE "C")',
                            tiers[1]))
                            USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, NULL::text, NULL::bigint,
                                  counted, NULL::tsquery, is_estimate, title_start;
                        GET DIAGNOSTICS got = ROW_COUNT;
                        wanted := wanted - got;
                        CONTINUE;
                    END IF;
                    EXECUTE format('SELECT b.title_sort, b.id FROM bookshelf.books b WHERE b.scope = $3%s%s
                                    ORDER BY b.title_sort, b.id OFFSET $4 LIMIT 1', keyset, walk_filter)
                        INTO walk_end_sort, walk_end_id USING patterns, first_at_start, account_scope, walk_rows - 1, after_sort, after_id;
                    RETURN QUERY EXECUTE format(page_rows, tier, format(
                        'SELECT b.id FROM bookshelf.books b WHERE b.scope = $3%s%s%s AND %s ORDER BY b.title_sort, b.id LIMIT $4',
                        keyset, walk_filter, CASE WHEN walk_end_sort IS NULL THEN '' ELSE ' AND (b.title_sort, b.id) <= ($7, $8)' END,
                        tiers[tier + 1]))
                        USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, walk_end_sort, walk_end_id, counted, NULL::tsquery, is_estimate;
                    GET DIAGNOSTICS got = ROW_COUNT;
                    wanted := wanted - got;
                    CONTINUE WHEN wanted <= 0 OR walk_end_sort IS NULL;
                    RETURN QUERY EXECUTE format(page_rows, tier, format(
                        'SELECT r.id FROM (SELECT b.id, b.title_sort FROM bookshelf.books b
                         WHERE b.scope = $3 AND (b.title_sort, b.id) > ($7, $8) AND %s AND %s OFFSET 0) AS r
                         ORDER BY r.title_sort COLLATE "C", r.id LIMIT $4', candidates[tier + 1], tiers[tier + 1]))
                        USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, walk_end_sort, walk_end_id, counted, words, is_estimate;
                    GET DIAGNOSTICS got = ROW_COUNT;
                    wanted := wanted - got;
                END LOOP;
            END IF;
            IF wanted = page_limit THEN
                RETURN QUERY SELECT counted, is_estimate, NULL::bigint, NULL::text, NULL::bigint, NULL::text, NULL::integer, NULL::text;
            END IF;
        END $$;
        """#
}
