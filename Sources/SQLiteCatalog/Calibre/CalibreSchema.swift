/// Which calibre wrote a library, from `PRAGMA user_version` (calibre's schema version, one
/// step per upgrade in its `db/schema_upgrades.py`) and the columns that exist: calibre 5.0
/// made version 23, calibre 9 version 26, which dropped `books.isbn` (ISBNs have lived in
/// `identifiers` since version 18). A library of a version outside those it knows is read but
/// never written: its columns or triggers may mean what this code does not know.
struct CalibreSchema: Equatable {
    let version: Int
    /// `books.isbn`, a copy of the ISBN calibre stopped reading at version 18; kept as it is.
    let booksHaveISBNColumn: Bool
    /// What this code writes, each of which must be there.
    let hasEveryWrittenColumn: Bool

    static let oldestKnown = 23
    static let newestKnown = 26

    /// The columns a save writes, by table.
    static let writtenColumns: [(table: String, columns: [String])] = [
        ("books", ["id", "title", "sort", "author_sort", "pubdate", "series_index", "last_modified"]),
        ("authors", ["id", "name", "sort"]), ("books_authors_link", ["book", "author"]),
        ("publishers", ["id", "name"]), ("books_publishers_link", ["book", "publisher"]),
        ("series", ["id", "name"]), ("books_series_link", ["book", "series"]), ("tags", ["id", "name"]),
        ("books_tags_link", ["book", "tag"]), ("identifiers", ["book", "type", "val"]),
        ("comments", ["book", "text"]), ("metadata_dirtied", ["book"]),
    ]

    static func read(_ reader: CalibreReader) throws(CalibreLibrary.Failure) -> CalibreSchema {
        let version = try reader.rows(of: "its schema version", "PRAGMA user_version") { $0.int(0) }.first ?? 0
        var columns: [String: Set<String>] = [:]
        for (table, column) in try reader.rows(
            of: "its schema",
            """
            SELECT lower(t.name), lower(c.name) FROM pragma_table_list t, pragma_table_info(t.name) c
            WHERE t.schema = 'main' AND t.type = 'table'
            """,
            row: { ($0.text(0), $0.text(1)) })
        {
            columns[table, default: []].insert(column)
        }
        let complete = writtenColumns.allSatisfy { table, wanted in
            wanted.allSatisfy { columns[table]?.contains($0) == true }
        }
        return CalibreSchema(
            version: version, booksHaveISBNColumn: columns["books"]?.contains("isbn") == true,
            hasEveryWrittenColumn: complete)
    }

    /// Why this library may not be written here, or nil.
    var reasonNotWritable: String? {
        if version > Self.newestKnown {
            return
                "this library was written by a calibre newer than Bookshelf knows (schema version \(version); it knows up to \(Self.newestKnown)), so it is read-only here"
        }
        if version < Self.oldestKnown {
            return
                "this library's schema (version \(version)) is older than calibre 5's (\(Self.oldestKnown)); open it in calibre once to upgrade it, until then it is read-only here"
        }
        if !hasEveryWrittenColumn {
            return "this library lacks columns calibre makes (is it damaged?), so it is read-only here"
        }
        return nil
    }
}
