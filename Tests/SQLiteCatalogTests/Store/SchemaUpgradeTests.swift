import BookCatalog
import Foundation
@testable import SQLiteCatalog
@testable import SearchEngine
import Testing

/// A catalog written by an older Bookshelf is upgraded on opening, and searches as a new one does.
@Suite struct SchemaUpgradeTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test func aVersionOneCatalogIsMigratedAndSearchable() async throws {
        let path = directory.path("v1.sqlite")
        do {
            let created = try RawConnection(path, create: true)
            let handle = created.handle
            try execute(handle, Self.versionOneSchema)
            try execute(
                handle,
                """
                INSERT INTO accounts VALUES ('reader', 'reader', 'main');
                INSERT INTO books(scope, title, author, revision, title_key, title_terms, author_terms, change_seq) VALUES
                    ('main', 'Rome', 'Livy', 1, 'rome', 'rome', 'livy', 1),
                    ('main', 'A History of Rome', 'Mary Beard', 3, 'a history of rome', 'a history of rome', 'mary beard', 2),
                    ('main', 'Spring 🌸 Rome', 'Bashō', 1, 'spring 🌸 rome', 'spring rome', 'basho', 3),
                    ('main', 'Øresund', 'Søren Ærø', 1, 'øresund', 'øresund', 'søren ærø', 4);
                PRAGMA user_version = 1;
                """)
        }
        let catalog = try SQLiteCatalog.open(path: path, create: false)
        let raw = try RawConnection(path)
        #expect(try queryText(raw.handle, "PRAGMA user_version") == "\(Schema.currentVersion)")
        let remote = try catalog.remote(account: "reader")
        let page = try await remote.search(SearchQuery(text: "rom"))
        #expect(page.records.map(\.title) == ["Rome", "A History of Rome", "Spring 🌸 Rome"] && page.total == 3)
        // Terms written before symbols were tokens are derived again by the upgrade.
        #expect(try await remote.search(SearchQuery(text: "🌸")).records.map(\.title) == ["Spring 🌸 Rome"])
        // Terms and title keys written before "ø" and "æ" were transliterated are derived again.
        #expect(try await remote.search(SearchQuery(text: "soren aero")).records.map(\.title) == ["Øresund"])
        #expect(try await remote.search(SearchQuery(text: "oresund")).records.map(\.title) == ["Øresund"])
        #expect(
            try await remote.search(SearchQuery(text: "")).records.map(\.title)
                == ["A History of Rome", "Øresund", "Rome", "Spring 🌸 Rome"])
        #expect(page.records[1].revision == 3)
        #expect(try await remote.searchIndexReport().snapshotStored)
    }

    @Test func aVersionFiveCatalogKeepsEveryBookAndRevisionWithEmptyDetails() async throws {
        let path = directory.path("v5.sqlite")
        do {
            let created = try RawConnection(path, create: true)
            try execute(created.handle, Self.versionFiveSchema)
            try execute(
                created.handle,
                """
                INSERT INTO accounts VALUES ('editor', 'editor', 'main');
                INSERT INTO books(scope, title, author, revision, title_key, title_terms, author_terms, change_seq) VALUES
                    ('main', 'Rome', 'Livy', 1, 'rome', 'rome', 'livy', 1),
                    ('main', 'A History of Rome', 'Mary Beard', 2, 'a history of rome', 'a history of rome', 'mary beard', 2);
                INSERT INTO book_revisions(book_id, revision, title, author, account, saved_at, operation) VALUES
                    (1, 1, 'Rome', 'Livy', NULL, 1000, NULL),
                    (2, 1, 'History of Rome', 'Beard', NULL, 1000, NULL),
                    (2, 2, 'A History of Rome', 'Mary Beard', 'editor', 2000, NULL);
                PRAGMA user_version = 5;
                """)
        }
        let catalog = try SQLiteCatalog.open(path: path, create: false)
        let raw = try RawConnection(path)
        #expect(try queryText(raw.handle, "PRAGMA user_version") == "\(Schema.currentVersion)")
        let editor = try catalog.remote(account: "editor")
        let livy = BookRecord(id: 1, title: "Rome", revision: 1, author: "Livy")
        let beard = BookRecord(id: 2, title: "A History of Rome", revision: 2, author: "Mary Beard")
        #expect(try await editor.load(id: 1) == livy)
        #expect(try await editor.load(id: 2) == beard)
        #expect(try await editor.search(SearchQuery(text: "rome")).records == [livy, beard])
        #expect(
            try await editor.history(of: 2).map(\.record) == [
                beard, BookRecord(id: 2, title: "History of Rome", revision: 1, author: "Beard"),
            ])

        // The new columns take details at once.
        let details = BookDetails(isbn: "9780141439518", year: 2015, tags: ["history"])
        let saved = try await editor.save(
            SaveRequest(id: 2, title: beard.title, details: details, expectedRevision: 2))
        #expect(saved == BookRecord(id: 2, title: beard.title, revision: 3, author: beard.author, details: details))
        #expect(try await editor.load(id: 2) == saved)
    }

    /// The schema of version 5, as it shipped: version 1, the stored search index (2) and the
    /// revision history (4); steps 3 and 5 changed rows only.
    static let versionFiveSchema =
        versionOneSchema + """
            CREATE TABLE search_snapshots(
                scope TEXT PRIMARY KEY NOT NULL,
                format INTEGER NOT NULL,
                change_seq INTEGER NOT NULL,
                book_count INTEGER NOT NULL,
                header BLOB NOT NULL
            ) STRICT;
            CREATE TABLE search_snapshot_parts(
                id INTEGER PRIMARY KEY,
                scope TEXT NOT NULL REFERENCES search_snapshots(scope) ON DELETE CASCADE,
                part INTEGER NOT NULL,
                data BLOB NOT NULL,
                UNIQUE (scope, part)
            ) STRICT;
            CREATE TABLE book_revisions(
                book_id INTEGER NOT NULL REFERENCES books(id),
                revision INTEGER NOT NULL,
                title TEXT NOT NULL,
                author TEXT NOT NULL,
                account TEXT,
                saved_at INTEGER NOT NULL,
                operation TEXT,
                PRIMARY KEY (book_id, revision)
            ) STRICT, WITHOUT ROWID;
            """

    /// The schema of version 1, as it shipped.
    static let versionOneSchema = """
        CREATE TABLE accounts(
            name TEXT PRIMARY KEY NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('reader', 'editor')),
            scope TEXT NOT NULL
        ) STRICT;
        CREATE TABLE books(
            id INTEGER PRIMARY KEY,
            scope TEXT NOT NULL,
            title TEXT NOT NULL CHECK (length(title) > 0),
            author TEXT NOT NULL DEFAULT '',
            revision INTEGER NOT NULL CHECK (revision > 0),
            title_key TEXT NOT NULL,
            title_terms TEXT NOT NULL,
            author_terms TEXT NOT NULL,
            change_seq INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX books_by_scope_title ON books(scope, title_key, id);
        CREATE INDEX books_by_change ON books(change_seq);
        CREATE TABLE committed_saves(
            operation TEXT PRIMARY KEY NOT NULL,
            book_id INTEGER NOT NULL REFERENCES books(id),
            revision INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        """
}
