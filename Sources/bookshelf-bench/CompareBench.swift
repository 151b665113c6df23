import BookCatalog
import CommandLineOptions
import Foundation
import PostgresCatalog
import SQLiteCatalog

/// Both stores on the same generated books in one run: the class table of each, then the
/// PostgreSQL/SQLite ratio of p50 and p99 per class.
enum CompareBench: BenchMode {
    static let name = "compare"
    static let summary = "PostgreSQL and SQLite on the same books: both class tables and the ratio per class"

    static let count = BenchNumber("count", default: 1_000_000, help: "books in each catalog")
    static let db = Option<String>(
        "db", value: "PATH", completes: .file, help: "SQLite catalog file, as in the search mode")
    static let pg = Option<String>(
        "pg", value: "CONNINFO",
        help: """
            PostgreSQL administrative connection, as --db of the postgres mode;
            default: a throwaway server in a temporary directory
            """)
    static let iterations = BenchNumber("iterations", default: 200, help: "timed searches per query class and store")
    static let options: [any OptionDeclaration] = [count, db, pg, iterations]

    static func run(_ arguments: ParsedArguments) async throws {
        let count = try arguments.value(Self.count)
        let iterations = max(1, try arguments.value(Self.iterations))
        let path =
            arguments.value(db)
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("bookshelf-bench-\(count).sqlite").path
        #if DEBUG
            print("warning: debug build; use `swift run -c release bookshelf-bench compare` for real figures")
        #endif

        _ = try SearchBench.prepareCatalog(path: path, count: count)
        let sqlite = try SQLiteCatalog.open(path: path, create: false).remote(account: "bench")
        let sqliteRepository = BookRepository(remote: sqlite)
        _ = try await sqliteRepository.search(SearchQuery(text: "a"))  // the index is loaded or built
        let sqliteTable = try await ClassTable.measure(sqliteRepository, iterations: iterations)
        sqliteTable.print(title: "SQLite: BookRepository -> SQLiteBookRemote, \(iterations) searches per class")

        let (server, postgres, _) = try await PostgresBench.prepare(count: count, database: arguments.value(pg))
        defer { server?.stop() }
        let postgresTable = try await ClassTable.measure(BookRepository(remote: postgres), iterations: iterations)
        postgresTable.print(
            title:
                "PostgreSQL: BookRepository -> PostgresRemote as \(PostgresBench.accountName) (row-level security), \(iterations) searches per class"
        )

        print("\nPostgreSQL / SQLite")
        print("class        p50 ratio  p99 ratio")
        for (pg, lite) in zip(postgresTable.rows, sqliteTable.rows) {
            let p50 = pg.timings.p50.milliseconds / max(lite.timings.p50.milliseconds, 0.000_001)
            let p99 = pg.timings.p99.milliseconds / max(lite.timings.p99.milliseconds, 0.000_001)
            print(
                "\(pg.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(String(format: "%8.1f", p50))x  \(String(format: "%8.1f", p99))x"
            )
        }
    }
}
