import BookCatalog
import Foundation
@testable import SQLiteCatalog
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
        #expect(try queryText(raw.handle, "PRAGMA user_version") == "5")
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
