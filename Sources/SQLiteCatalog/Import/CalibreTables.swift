/// The names the import reads, each of which must be a table of the file's schema: a view
/// would run whatever query its maker wrote (one that recurses for ever, one that builds a
/// value of gigabytes), and a virtual table a module's code. Calibre makes them all tables.
enum CalibreTables {
    static let read = [
        "books", "authors", "books_authors_link", "identifiers", "publishers", "books_publishers_link", "series",
        "books_series_link", "tags", "books_tags_link", "comments", "ratings", "books_ratings_link",
        "books_languages_link",
    ]

    /// What a library worked on in place also reads or writes: its id, and the books calibre is
    /// to write the metadata backup of.
    static let readAndWrittenInPlace = read + ["library_id", "metadata_dirtied"]

    static func requireTables(_ reader: CalibreReader, _ names: [String] = read) throws(CalibreLibrary.Failure) {
        // Names are matched as SQLite matches them, ASCII letters in any case.
        let placeholders = names.map { "'\($0)'" }.joined(separator: ", ")
        let objects = try reader.rows(
            of: "its schema",
            "SELECT lower(name), type FROM pragma_table_list WHERE schema = 'main' AND lower(name) IN (\(placeholders))"
        ) { (name: $0.text(0), type: $0.text(1)) }
        for name in names {
            guard let object = objects.first(where: { $0.name == name }) else {
                throw CalibreLibrary.Failure(
                    description: "\(reader.file) is not a Calibre library's metadata.db (it has no \(name) table)")
            }
            guard object.type == "table" else {
                // "view", "virtual" (a module's code), or "shadow" (a virtual table's storage).
                let kind = object.type == "view" ? "a view" : "a \(object.type) table"
                throw CalibreLibrary.Failure(
                    description:
                        "cannot read the Calibre library \(reader.file): its \(name) is \(kind), not a table (Calibre makes it a table; only tables are read)"
                )
            }
        }
    }
}
