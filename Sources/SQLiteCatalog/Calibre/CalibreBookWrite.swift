import BookCatalog

/// One save of a book into a library, as calibre's own writer makes it (`db/write.py`), inside
/// the caller's transaction: only the fields that differ from the book as stored are written;
/// names of authors, tags, series and publishers reuse their rows (matched without regard to
/// case, a new case renaming the row as calibre does) or get new ones, and rows no book uses
/// any more are deleted, as calibre deletes them; the title's sort is made by calibre's
/// trigger (`title_sort`), the authors' sort here; then `last_modified` moves and the book is
/// marked in `metadata_dirtied`, so that calibre rewrites its `metadata.opf`.
struct CalibreBookWrite {
    let reader: CalibreReader
    let book: Int

    /// What calibre stores as the author of a book with none.
    static let unknownAuthor = CalibreMapping.unknownAuthor

    /// Writes what differs between `stored` and the request; returns the books whose text
    /// changed besides this one (a name's case changed for every book that has it).
    func write(_ request: SaveRequest, over stored: BookRecord) throws(CalibreLibrary.Failure) -> Set<Int> {
        var alsoChanged: Set<Int> = []
        if request.title != stored.title {
            // calibre's trigger makes the sort when the title changes, but compares without
            // regard to case ("NOCASE"): a new case would keep the old sort's.
            try run(
                "UPDATE books SET title = ?1, sort = title_sort(?1) WHERE id = ?2", [.text(request.title), .int(book)])
        }
        if let author = request.author, author != stored.author {
            let names = Self.authorNames(author)
            let ids = try names.map { name throws(CalibreLibrary.Failure) in
                try itemID(table: .authors, name: name, changed: &alsoChanged)
            }
            try relink(.authors, to: ids)
            let sorts = try ids.map { id throws(CalibreLibrary.Failure) in
                try rows("SELECT coalesce(sort, ''), name FROM authors WHERE id = ?1", [.int(id)]) {
                    $0.text(0).isEmpty ? CalibreSortText.authorSort($0.text(1)) : $0.text(0)
                }.first ?? ""
            }
            try run(
                "UPDATE books SET author_sort = ?1 WHERE id = ?2", [.text(sorts.joined(separator: " & ")), .int(book)])
        }
        if let details = request.details, details != stored.details {
            try write(details, over: stored.details, changed: &alsoChanged)
        }
        return alsoChanged.subtracting([book])
    }

    private func write(_ details: BookDetails, over stored: BookDetails, changed: inout Set<Int>)
        throws(CalibreLibrary.Failure)
    {
        if details.tags != stored.tags {
            var ids: [Int] = []
            for tag in details.tags {
                let id = try itemID(table: .tags, name: tag, changed: &changed)
                if !ids.contains(id) { ids.append(id) }
            }
            try relink(.tags, to: ids)
        }
        if details.series != stored.series {
            let ids =
                details.series.isEmpty ? [] : [try itemID(table: .series, name: details.series, changed: &changed)]
            try relink(.series, to: ids)
        }
        if details.series != stored.series || details.seriesIndex != stored.seriesIndex {
            // calibre gives every book an index, 1 by default.
            // Bound as text, which the column's REAL affinity stores as the number.
            let index = Double(details.seriesIndex?.thousandths ?? 1000) / 1000
            try run("UPDATE books SET series_index = ?1 WHERE id = ?2", [.text(String(index)), .int(book)])
        }
        if details.publisher != stored.publisher {
            let ids =
                details.publisher.isEmpty
                ? [] : [try itemID(table: .publishers, name: details.publisher, changed: &changed)]
            try relink(.publishers, to: ids)
        }
        if details.isbn != stored.isbn {
            if let isbn = details.isbn {
                try run(
                    "INSERT OR REPLACE INTO identifiers (book, type, val) VALUES (?1, 'isbn', ?2)",
                    [.int(book), .text(isbn)])
            } else {
                try run("DELETE FROM identifiers WHERE book = ?1 AND type = 'isbn'", [.int(book)])
            }
        }
        if details.year != stored.year {
            let pubdate =
                try rows("SELECT pubdate FROM books WHERE id = ?1", [.int(book)]) {
                    $0.isNull(0) ? nil : $0.text(0)
                }.first ?? nil
            try run(
                "UPDATE books SET pubdate = ?1 WHERE id = ?2",
                [.text(Self.pubdate(year: details.year, keeping: pubdate)), .int(book)])
        }
        if details.notes != stored.notes {
            if details.notes.isEmpty {
                try run("DELETE FROM comments WHERE book = ?1", [.int(book)])
            } else {
                try run(
                    "INSERT OR REPLACE INTO comments (book, text) VALUES (?1, ?2)",
                    [.int(book), .text(Self.commentsHTML(details.notes))])
            }
        }
    }

    /// Moves the book's `last_modified` to `stamp` and marks it for calibre's metadata backup.
    func touch(_ books: Set<Int>, at stamp: Int) throws(CalibreLibrary.Failure) {
        for id in books.sorted() {
            try run(
                "UPDATE books SET last_modified = ?1 WHERE id = ?2", [.text(CalibreTimestamp.text(stamp)), .int(id)])
            try run("INSERT OR IGNORE INTO metadata_dirtied (book) VALUES (?1)", [.int(id)])
        }
    }

    // MARK: Names and their links

    /// The tables of names a book links to, with their link tables.
    enum NameTable: String {
        case authors, tags, series, publishers

        var link: String { "books_\(rawValue)_link" }
        var linkColumn: String {
            switch self {
            case .authors: "author"
            case .tags: "tag"
            case .series: "series"
            case .publishers: "publisher"
            }
        }
    }

    /// The row of `name`, made if there is none; a row that differs only in case takes the
    /// new case, and the books that have it are added to `changed`.
    private func itemID(table: NameTable, name: String, changed: inout Set<Int>) throws(CalibreLibrary.Failure) -> Int {
        // calibre keeps a comma of an author's name as "|".
        let stored = table == .authors ? name.replacingOccurrences(of: ",", with: "|") : name
        let found = try rows(
            "SELECT id, name FROM \(table.rawValue) WHERE lower(name) = lower(?1) ORDER BY id LIMIT 1",
            [.text(stored)]
        ) { ($0.int(0), $0.text(1)) }.first
        if let (id, current) = found {
            if current != stored {
                try run("UPDATE \(table.rawValue) SET name = ?1 WHERE id = ?2", [.text(stored), .int(id)])
                changed.formUnion(
                    try rows("SELECT book FROM \(table.link) WHERE \(table.linkColumn) = ?1", [.int(id)]) { $0.int(0) })
            }
            return id
        }
        let made: [Int]
        if table == .authors {
            made = try rows(
                "INSERT INTO authors (name, sort) VALUES (?1, ?2) RETURNING id",
                [.text(stored), .text(CalibreSortText.authorSort(name))]
            ) { $0.int(0) }
        } else {
            made = try rows("INSERT INTO \(table.rawValue) (name) VALUES (?1) RETURNING id", [.text(stored)]) {
                $0.int(0)
            }
        }
        guard let id = made.first else {
            throw CalibreLibrary.Failure(description: "calibre's \(table.rawValue) table took no new row")
        }
        return id
    }

    /// Links the book to exactly `ids`, in order, and deletes the rows it was linked to that
    /// no book uses any more.
    private func relink(_ table: NameTable, to ids: [Int]) throws(CalibreLibrary.Failure) {
        let previous = try rows("SELECT \(table.linkColumn) FROM \(table.link) WHERE book = ?1", [.int(book)]) {
            $0.int(0)
        }
        try run("DELETE FROM \(table.link) WHERE book = ?1", [.int(book)])
        for id in ids {
            try run("INSERT INTO \(table.link) (book, \(table.linkColumn)) VALUES (?1, ?2)", [.int(book), .int(id)])
        }
        for id in Set(previous).subtracting(ids) {
            try run(
                """
                DELETE FROM \(table.rawValue) WHERE id = ?1
                AND NOT EXISTS (SELECT 1 FROM \(table.link) WHERE \(table.linkColumn) = ?1)
                """, [.int(id)])
        }
    }

    // MARK: Values as calibre keeps them

    /// calibre's reading of an author text: names between "&" ("&&" for an ampersand inside a
    /// name), each trimmed; none is calibre's "Unknown".
    static func authorNames(_ author: String) -> [String] {
        let escaped = author.replacingOccurrences(of: "&&", with: "\u{FFFF}")
        var names: [String] = []
        for part in escaped.split(separator: "&", omittingEmptySubsequences: false) {
            let name = CalibreSortText.trimmed(String(part)).replacingOccurrences(of: "\u{FFFF}", with: "&")
            if !name.isEmpty, !names.contains(where: { $0.lowercased() == name.lowercased() }) { names.append(name) }
        }
        return names.isEmpty ? [unknownAuthor] : names
    }

    /// A pubdate in `year`: the stored date's month, day and time kept when it has one (the year
    /// is all Bookshelf shows), else the 15th of January at midnight UTC, mid-month as calibre
    /// stores a date with no day, so that no time zone shows it in another year. No year is
    /// calibre's "undefined" date.
    static func pubdate(year: Int?, keeping stored: String?) -> String {
        guard let year else { return CalibreLibrary.unknownDatePrefix + " 00:00:00+00:00" }
        let yearText = year < 0 ? "-" + padded(-year, 4) : padded(year, 4)
        if let stored, !stored.hasPrefix(CalibreLibrary.unknownDatePrefix), stored.count >= 10,
            let dash = stored.dropFirst().firstIndex(of: "-")
        {
            var rest = String(stored[dash...])
            // The 29th of February exists only in leap years.
            if rest.hasPrefix("-02-29"), !isLeap(year) { rest = "-02-28" + rest.dropFirst(6) }
            return yearText + rest
        }
        return yearText + "-01-15 00:00:00+00:00"
    }

    private static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Notes as the HTML of calibre's comments: one paragraph, a line break per line, the text
    /// escaped; `HTMLText.plainText` reads it back as the same lines (white space inside a line
    /// as HTML has it: a run of spaces is one).
    static func commentsHTML(_ notes: String) -> String {
        let lines = notes.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        return "<p>" + lines.joined(separator: "<br>") + "</p>"
    }

    // MARK: Statements, metered

    private func run(_ sql: String, _ arguments: [SQLValue]) throws(CalibreLibrary.Failure) {
        _ = try reader.rows(of: "its tables", sql, arguments) { _ in () }
    }

    private func rows<T>(_ sql: String, _ arguments: [SQLValue], _ row: (Statement) -> T)
        throws(CalibreLibrary.Failure) -> [T]
    {
        try reader.rows(of: "its tables", sql, arguments, row: row)
    }
}
