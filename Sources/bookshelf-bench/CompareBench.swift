import BookCatalog
import Foundation
import PostgresCatalog
import SQLiteCatalog

/// Both stores on the same generated books in one run: the class table of each, then the
/// PostgreSQL/SQLite ratio of p50 and p99 per class.
enum CompareBench: BenchMode {
    static let name = "compare"
    static let summary = "PostgreSQL and SQLite on the same books: both class tables and the ratio per class"

    static let help = """
        usage: bookshelf-bench compare [--count N] [--db PATH] [--pg CONNINFO] [--iterations N]

          --count N       books in each catalog (default 1000000)
          --db PATH       SQLite catalog file, as in the search mode
          --pg CONNINFO   PostgreSQL administrative connection, as --db of the postgres mode;
                          default: a throwaway server in a temporary directory
          --iterations N  timed searches per query class and store (default 200)
        """

    static func run(_ arguments: [String]) async throws {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(help)
            return
        }
        let options = try BenchOptions(arguments, valued: ["--count", "--db", "--pg", "--iterations"], flags: [])
        let count = try options.int("--count", default: 1_000_000)
        let iterations = max(1, try options.int("--iterations", default: 200))
        let path = options.string("--db")
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

        let (server, postgres, _) = try await PostgresBench.prepare(count: count, database: options.string("--pg"))
        defer { server?.stop() }
        let postgresTable = try await ClassTable.measure(BookRepository(remote: postgres), iterations: iterations)
        postgresTable.print(title: "PostgreSQL: BookRepository -> PostgresRemote as \(PostgresBench.accountName) (row-level security), \(iterations) searches per class")

        print("\nPostgreSQL / SQLite")
        print("class        p50 ratio  p99 ratio")
        for (pg, lite) in zip(postgresTable.rows, sqliteTable.rows) {
            let p50 = pg.timings.p50.milliseconds / max(lite.timings.p50.milliseconds, 0.000_001)
            let p99 = pg.timings.p99.milliseconds / max(lite.timings.p99.milliseconds, 0.000_001)
            print("\(pg.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(String(format: "%8.1f", p50))x  \(String(format: "%8.1f", p99))x")
        }
    }
}
