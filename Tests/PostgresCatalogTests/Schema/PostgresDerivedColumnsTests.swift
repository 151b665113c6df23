import BookCatalog
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// The search columns are the database's to derive: its folding must agree with Swift's,
/// and an editor's hand-written UPDATE leaves the book searchable by what it now says.
@Suite(
    "PostgreSQL derived search columns",
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"), .tags(.postgres))
struct PostgresDerivedColumnsTests {
    /// Text where folding and token boundaries are easy to get wrong.
    static let edgeCorpus: [String] = [
        "", " ", "Café", "Cafe\u{301} au lait", "\u{301}Leading mark", "ÅNGSTRÖM", "Straße", "ﬁnance ﬂow", "Ǆemal",
        "ǅ ǆ", "İstanbul ı", "Σίσυφος ΣΊΣΥΦΟΣ", "Ωmega", "Ｆｕｌｌｗｉｄｔｈ １２３", "ｶﾞｷﾞ ﾊﾟﾝ", "日本の歴史", "한국의 역사",
        "\u{1100}\u{1161}\u{11A8}", "中国古代史", "ノート ひかり", "Cooking with 🍅 Tomatoes", "👩‍👩‍👧 family", "🇯🇵 flag",
        "x²³ ½ ①②", "١٢٣ عربى", "हिन्दी भाषा", "ไทย ภาษา", "Ελληνικά", "Ⅻ Roman", "O'Brien–Smith", "a_b-c.d",
        "tab\u{A0}nbsp\u{2003}em", "Þórsson Søren Łódź", "Dvořák Zoë Brontë", "ℌ𝔢𝔩𝔩𝔬 𝐁𝐨𝐥𝐝", "ﾟ", "ａ\u{301}",
    ]

    @Test("the database folds and tokenises like SearchTerms on the whole sample and a Unicode edge corpus")
    func foldingAgrees() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let starter = SampleBooks.starter.shelves.flatMap(\.books)
        let texts = Set(starter.flatMap { [$0.title, $0.author] } + Self.edgeCorpus)
        var disagreements: [String] = []
        for text in texts.sorted() {
            let rows = try await catalog.setup.execute("SELECT sort_key, words FROM bookshelf.index_text($1)", [text])
            let expected = BookIndexText(title: text, author: text)
            let got = rows.first ?? []
            if got.count != 2 || got[0] != expected.titleSort || got[1] != expected.titleWords {
                disagreements.append(
                    "\(text.debugDescription): swift \(expected.titleSort.debugDescription) \(expected.titleWords.debugDescription), database \(got)"
                )
            }
        }
        #expect(texts.count > 2_500, "the sample's distinct titles and authors, and the corpus")
        let report = disagreements.prefix(20).joined(separator: "\n")
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(texts.count) disagree:\n\(report)")
    }

    @Test("an editor's raw SQL edit stays searchable, and the search columns cannot be written")
    func rawEditsStaySearchable() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let book = try #require(
            try await catalog.addBooks([NewBook(title: "Dune", author: "Frank Herbert")], scope: "main").first)
        let sql = try await RawSQLSession(catalog.connector(for: editor))
        let remote = try await catalog.remote(for: editor)

        _ = try await sql.rows(
            "UPDATE bookshelf.books SET title = 'Zanzíbar Nights', author = 'Ångström', revision = revision + 1 WHERE id = $1",
            [String(book.id)])
        #expect(try await remote.search(SearchQuery(text: "zanzib")).records.map(\.id) == [book.id])
        #expect(try await remote.search(SearchQuery(text: "angst")).records.map(\.id) == [book.id])
        #expect(try await remote.search(SearchQuery(text: "dune")).records.isEmpty)
        #expect(try await remote.search(SearchQuery(text: "herbert")).records.isEmpty)

        let forged = try await sql.run(
            "UPDATE bookshelf.books SET title_words = ' anything', revision = revision + 1 WHERE id = $1",
            [String(book.id)])
        #expect(forged.sqlState == PostgresServerError.insufficientPrivilege)
        // A save through the app derives them the same way.
        _ = try await remote.save(
            SaveRequest(id: book.id, title: "Children of Dune", author: "Frank Herbert", expectedRevision: 2))
        #expect(try await remote.search(SearchQuery(text: "child dun")).records.map(\.id) == [book.id])
        let stored = try await catalog.setup.execute(
            "SELECT title_sort, title_words, author_words FROM bookshelf.books WHERE id = $1",
            [String(book.id)])
        let expected = BookIndexText(title: "Children of Dune", author: "Frank Herbert")
        #expect(stored == [[expected.titleSort, expected.titleWords, expected.authorWords]])
    }

    @Test("a save that keeps the title and author does not derive their words again; one that changes them does")
    func keptTitleIsNotDerivedAgain() async throws {
        let catalog = try await PostgresTestCatalog.make()
        // Calls of PL/pgSQL functions are counted only with track_functions, a superuser's
        // setting: given to the sessions that open on this test's database from now on.
        _ = try await catalog.setup.execute("ALTER DATABASE \(catalog.database) SET track_functions = 'pl'")
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let book = try #require(
            try await catalog.addBooks([NewBook(title: "Dune", author: "Frank Herbert")], scope: "main").first)
        let sql = try await RawSQLSession(catalog.connector(for: editor))
        func derivations() async throws -> Int {
            let rows = try await sql.rows(
                "SELECT coalesce(pg_stat_get_xact_function_calls('bookshelf.derive_search_columns'::regproc), 0)")
            return try #require(rows.first?[0].flatMap { Int($0) })
        }
        // The app's own save statement, as a bulk edit sends it: a tag added, the rest as it was.
        func save(title: String, tags: [String], from revision: Int) async throws -> [[String?]] {
            let request = SaveRequest(
                id: book.id, title: title, author: "Frank Herbert", details: BookDetails(tags: tags),
                expectedRevision: revision)
            return try await sql.rows(
                PostgresStatements.save, try PostgresRemote.saveParameters(request, batch: nil))
        }

        _ = try await sql.rows("BEGIN")
        #expect(try await save(title: "Dune", tags: ["classic"], from: 1).count == 1)
        #expect(try await derivations() == 0, "the title and author are those the book had")
        #expect(try await save(title: "Children of Dune", tags: ["classic"], from: 2).count == 1)
        #expect(try await derivations() == 1, "the title changed")
        _ = try await sql.rows("COMMIT")

        let stored = try await catalog.setup.execute(
            "SELECT title_sort, title_words, author_words FROM bookshelf.books WHERE id = $1", [String(book.id)])
        let expected = BookIndexText(title: "Children of Dune", author: "Frank Herbert")
        #expect(stored == [[expected.titleSort, expected.titleWords, expected.authorWords]])
        let remote = try await catalog.remote(for: editor)
        #expect(try await remote.search(SearchQuery(text: "child dun")).records.map(\.id) == [book.id])
        #expect(try await remote.search(SearchQuery(text: "classic")).records.map(\.id) == [book.id])
        #expect(try await remote.search(SearchQuery(text: "herbert")).records.map(\.id) == [book.id])
    }

    @Test("word prefixes by the PL/pgSQL loop are what schema 22's SQL query gave: the sample, the corpus, edge words")
    func wordPrefixesAgreeWithTheQuery() async throws {
        let catalog = try await PostgresTestCatalog.make()
        // Schema 22's word_prefixes, as a temporary function of the setup's session.
        _ = try await catalog.setup.execute(
            """
            CREATE FUNCTION pg_temp.query_word_prefixes(words text) RETURNS tsvector
                LANGUAGE sql IMMUTABLE STRICT SET search_path TO 'pg_catalog', 'pg_temp' AS $$
                SELECT array_to_tsvector(coalesce(array_agg(DISTINCT left(t.word, n.length)), '{}'))
                FROM unnest(string_to_array(words, ' ')) AS t(word)
                CROSS JOIN LATERAL generate_series(1, least(char_length(t.word), 12)) AS n(length)
            $$
            """)
        let starter = SampleBooks.starter.shelves.flatMap(\.books)
        let sources = starter.flatMap { [$0.title, $0.author] } + Self.edgeCorpus
        // Words as the catalog stores them (each after a space), and texts whose words are the
        // edges: none, empty ones between spaces, 12 and 13 characters, repeats, a long one.
        let edges = [
            "", " ", "  a  b ", " abcdefghijkl abcdefghijklm", " ab ab abc ab", " " + String(repeating: "x", count: 40),
            " café 日本の歴史 👩‍👩‍👧 ñ", " the the\nthe",
        ]
        let compared = try await catalog.setup.execute(
            """
            WITH texts AS (
                SELECT (bookshelf.index_text(s)).words AS t FROM unnest($1::text[]) AS s
                UNION ALL SELECT e FROM unnest($2::text[]) AS e)
            SELECT count(*)::text,
                   count(*) FILTER (WHERE bookshelf.word_prefixes(t) IS DISTINCT FROM pg_temp.query_word_prefixes(t))::text
            FROM texts
            """, [PostgresDetailsColumns.arrayLiteral(sources), PostgresDetailsColumns.arrayLiteral(edges)])
        #expect(compared == [[String(sources.count + edges.count), "0"]])
        // Not an empty agreement: a title's words give a prefix of each length up to twelve.
        let harbour = try await catalog.setup.execute("SELECT bookshelf.word_prefixes(' harbour lights')::text")
        #expect(
            harbour == [["'h' 'ha' 'har' 'harb' 'harbo' 'harbou' 'harbour' 'l' 'li' 'lig' 'ligh' 'light' 'lights'"]])
    }

    @Test("a book's other words by the PL/pgSQL loop are what schema 22's SQL query gave")
    func otherWordsAgreeWithTheQuery() async throws {
        let catalog = try await PostgresTestCatalog.make()
        // Schema 22's other_words, as a temporary function of the setup's session.
        _ = try await catalog.setup.execute(
            """
            CREATE FUNCTION pg_temp.query_other_words(series text, publisher text, tags text[]) RETURNS text
                LANGUAGE sql STABLE SET search_path TO 'pg_catalog', 'pg_temp' AS $$
                SELECT coalesce(string_agg(w.words, E'\\n' ORDER BY f.n), '')
                FROM (SELECT series, 0::bigint UNION ALL SELECT publisher, 1
                      UNION ALL SELECT t.tag, 1 + t.n FROM unnest(tags) WITH ORDINALITY AS t(tag, n)) AS f(field, n)
                CROSS JOIN LATERAL bookshelf.index_text(f.field) AS w
                WHERE f.field IS NOT NULL AND w.words <> ' '
            $$
            """)
        // The sample's details, and the corpus taken four at a time as a series, a publisher
        // and two tags; then fields that are missing, empty or without words.
        let details = SampleBooks.starter.shelves.flatMap(\.books).compactMap(\.details)
        var books: [[String?]] = details.map {
            [$0.series, $0.publisher, PostgresDetailsColumns.arrayLiteral($0.tags)]
        }
        let corpus = Self.edgeCorpus
        for start in corpus.indices {
            let field = { corpus[(start + $0) % corpus.count] }
            books.append([field(0), field(1), PostgresDetailsColumns.arrayLiteral([field(2), field(3)])])
        }
        // ASCII fields are cut in one pass, joined by line feeds: fields without words at
        // either end or side by side, a line feed or a tab in a field, words of one character
        // ($ + < = > | ~) at a field's edges, and an ASCII field beside one that is not.
        let edges: [[String?]] = [
            [nil, nil, nil], ["", "", "{}"], [" ", "-", #"{"", " ", NULL, "x"}"#],
            ["Dune", nil, #"{"sci-fi", "Dune"}"#], ["Dune", "Ace", "{{a,b},{c,d}}"],
            ["--", "Ace", #"{"", "!", "x", " ", "-"}"#], ["Two\nlines", " Ace\t", "{\"a\nb\"}"],
            ["$5 ~x", "a+b", #"{"<=>", "|", "~", " $"}"#], ["Dune", "Éditions", "{sf}"],
            ["\u{7F}\u{01}", "A\u{1F}B", "{}"],
            [nil, "", #"{"A", NULL, "B"}"#],
        ]
        books += edges
        var disagreements: [String] = []
        for book in books {
            let rows = try await catalog.setup.execute(
                """
                SELECT bookshelf.other_words($1, $2, $3::text[]), pg_temp.query_other_words($1, $2, $3::text[]),
                       bookshelf.other_words($1, $2, $3::text[]) IS DISTINCT FROM pg_temp.query_other_words($1, $2, $3::text[])
                """, book)
            if rows.first?[2] != "f" { disagreements.append("\(book): \(rows)") }
        }
        #expect(books.count > 40)
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10).joined(separator: "\n"))")
        // Not an empty agreement: each field's words, in order, a line each.
        let dune = try await catalog.setup.execute(
            "SELECT bookshelf.other_words('Dune Chronicles', 'Ace', '{\"sci-fi\", \"Arrakis\"}')")
        #expect(dune == [[" dune chronicles\n ace\n sci fi\n arrakis"]])

        // Every ASCII character and every pair, as a series, a publisher and tags around them.
        let compared = try await catalog.setup.execute(
            """
            WITH c AS (SELECT code, chr(code) AS ch FROM generate_series(1, 127) AS code),
            fields AS (SELECT a.ch || b.ch AS pair, a.ch AS one, b.ch AS other FROM c AS a CROSS JOIN c AS b),
            books AS (SELECT pair AS series, one AS publisher, ARRAY[other, 'x' || pair, one] AS tags FROM fields
                      UNION ALL SELECT one, 'Ace ' || pair, ARRAY[pair] FROM fields)
            SELECT count(*)::text,
                   count(*) FILTER (WHERE bookshelf.other_words(series, publisher, tags)
                       IS DISTINCT FROM pg_temp.query_other_words(series, publisher, tags))::text
            FROM books
            """)
        #expect(compared == [[String(2 * 127 * 127), "0"]])
    }

    @Test("a book's ASCII other words are worked out in one pass, without cutting each field alone")
    func asciiOtherWordsInOnePass() async throws {
        let catalog = try await PostgresTestCatalog.make()
        // Calls of PL/pgSQL functions are counted only with track_functions, a superuser's
        // setting: given to the sessions that open on this test's database from now on.
        _ = try await catalog.setup.execute("ALTER DATABASE \(catalog.database) SET track_functions = 'pl'")
        let sql = try await RawSQLSession(catalog.adminConnector)
        func cuts() async throws -> String? {
            try await sql.rows(
                "SELECT coalesce(pg_stat_get_xact_function_calls('bookshelf.index_text'::regproc), 0)::text"
            ).first?[0]
        }
        _ = try await sql.rows("BEGIN")
        #expect(
            try await sql.rows("SELECT bookshelf.other_words('Dune', 'Ace Books', '{\"sci-fi\", \"1965\"}')")
                == [[" dune\n ace books\n sci fi\n 1965"]])
        #expect(try await cuts() == "0")
        let accented = BookIndexText.otherWords(BookDetails(publisher: "Éditions", series: "Dune", tags: ["sf"]))
        #expect(try await sql.rows("SELECT bookshelf.other_words('Dune', 'Éditions', '{sf}')") == [[accented]])
        #expect(try await cuts() == "3", "a field that is not ASCII: each field cut alone, as before")
        _ = try await sql.rows("ROLLBACK")
    }

    @Test("ASCII text is folded without the per-character loop, to what the loop gives: every character, every pair")
    func asciiTextAgreesWithTheLoop() async throws {
        let catalog = try await PostgresTestCatalog.make()
        // The folding table's ASCII rows are those the short way is written for: A-Z fold to
        // a-z, letters and digits make words, each of $ + < = > | ~ is a word alone (kind i),
        // and every other character has no row (it separates words and folds to itself).
        let rows = try await catalog.setup.execute(
            "SELECT f.code::text, f.kind::text, f.folded, f.folded_alone FROM bookshelf.folding AS f WHERE f.code < 128 ORDER BY f.code"
        )
        var expected: [[String?]] = []
        for code in 1..<128 {
            let character = String(UnicodeScalar(UInt8(code)))
            if ("A"..."Z").contains(character) {
                expected.append([String(code), "w", character.lowercased(), nil])
            } else if ("a"..."z").contains(character) || ("0"..."9").contains(character) {
                expected.append([String(code), "w", nil, nil])
            } else if "$+<=>|~".contains(character) {
                expected.append([String(code), "i", nil, nil])
            }
        }
        #expect(rows == expected)

        let compared = try await catalog.setup.execute(
            """
            WITH c AS (SELECT chr(code) AS ch FROM generate_series(1, 127) AS code),
            texts AS (SELECT ch AS t FROM c UNION ALL SELECT a.ch || b.ch FROM c AS a CROSS JOIN c AS b
                      UNION ALL SELECT 'The Lord of the Rings: 1 + 2 = 3 | "Ann" O''Brien-Smith $5 ~x')
            SELECT count(*)::text,
                   count(*) FILTER (WHERE (i.sort_key, i.words) IS DISTINCT FROM (l.sort_key, l.words))::text
            FROM texts CROSS JOIN LATERAL bookshelf.index_text(texts.t) AS i
            CROSS JOIN LATERAL bookshelf.index_text_by_characters(texts.t) AS l
            """)
        #expect(compared == [[String(127 + 127 * 127 + 1), "0"]])

        // Which way each text took: calls of the loop, counted with track_functions (a
        // superuser's setting, given to the sessions that open on this database from now on).
        _ = try await catalog.setup.execute("ALTER DATABASE \(catalog.database) SET track_functions = 'pl'")
        let sql = try await RawSQLSession(catalog.adminConnector)
        func loops() async throws -> String? {
            try await sql.rows(
                "SELECT coalesce(pg_stat_get_xact_function_calls('bookshelf.index_text_by_characters'::regproc), 0)::text"
            ).first?[0]
        }
        _ = try await sql.rows("BEGIN")
        #expect(try await sql.rows("SELECT words FROM bookshelf.index_text('Harbour Lights')") == [[" harbour lights"]])
        #expect(try await loops() == "0")
        let expectedBronte = BookIndexText(title: "Jane Eyre", author: "Charlotte Brontë").authorWords
        #expect(try await sql.rows("SELECT words FROM bookshelf.index_text('Charlotte Brontë')") == [[expectedBronte]])
        #expect(try await loops() == "1")
        _ = try await sql.rows("ROLLBACK")
    }
}
