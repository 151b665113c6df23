import CommandLineOptions
import Foundation
import PostgresCatalog
import SQLiteCatalog

/// Which store a command talks to, decided once from `--db` / `BOOKSHELF_DB` (see
/// `CatalogLocation` for the order): a PostgreSQL connection when the value is a
/// `postgresql://` or `postgres://` URL or a libpq keyword string (`host=... dbname=...`),
/// a Calibre library worked on in place when it is a folder holding a `metadata.db` or such a
/// file ("~/" read as the home folder, as a quoted path keeps it); otherwise an SQLite file.
/// Every command asks this type; none repeats the rule.
enum CatalogTarget {
    case sqlite(path: String)
    case postgres(PostgresConnector)
    case calibre(path: String)

    static func resolve(option: String?, environment: [String: String]) throws(UsageError) -> CatalogTarget {
        classify(try CatalogLocation.resolve(option: option, environment: environment), environment: environment)
    }

    static func classify(_ value: String, environment: [String: String] = [:]) -> CatalogTarget {
        if isPostgres(value) { return .postgres(PostgresConnector(value)) }
        var path = value
        if path.hasPrefix("~/"), let home = environment["HOME"], home.hasPrefix("/") {
            path = home + path.dropFirst()
        }
        return CalibreLibraryStore.isLibrary(path) ? .calibre(path: path) : .sqlite(path: value)
    }

    /// A keyword string starts with `keyword=`; a file path such as `./a=b.sqlite` does not,
    /// because its text before the first `=` is not a plain keyword.
    static func isPostgres(_ value: String) -> Bool {
        let lowered = value.lowercased()
        if lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://") { return true }
        let trimmed = value.drop { $0 == " " }
        guard let equals = trimmed.firstIndex(of: "=") else { return false }
        var keyword = trimmed[..<equals]
        while keyword.last == " " { keyword.removeLast() }
        return !keyword.isEmpty && keyword.allSatisfy { $0.isASCII && ($0.isLetter || $0 == "_") }
    }

    /// For help texts.
    static let explanation = """
        The catalog is --db PATH, else $\(CatalogLocation.environmentVariable), else
        $XDG_DATA_HOME/bookshelf/catalog.sqlite, else ~/.local/share/bookshelf/catalog.sqlite.
        PATH is an SQLite file, or a PostgreSQL database: a URL (postgresql://alice@host/books)
        or a libpq keyword string ("host=db.example dbname=books user=alice"). libpq's
        variables (PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD, PGPASSFILE...) fill in
        what the PostgreSQL forms leave out; run 'bookshelf setup' once to prepare one.
        A Calibre library's folder (or its metadata.db) opens the library itself, in place;
        see docs/calibre.md.
        """
}
