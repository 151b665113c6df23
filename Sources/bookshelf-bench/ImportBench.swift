import CommandLineOptions
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `bookshelf import` as whole processes: the peak RSS of a file of valid rows and of a file
/// that is one enormous line (each should stay far below the file's size: the file is
/// streamed), and rows per second against the `sqlite3` shell's `.import` of the same CSV into
/// a fresh database, the two taking turns.
enum ImportBench: BenchMode {
    static let name = "import"
    static let summary = "whole `bookshelf import` processes: peak RSS on big files, rows/s vs sqlite3's .import"

    static let megabytes = BenchNumber("megabytes", default: 1_024, help: "size of the file of valid rows, in MiB")
    static let lineMegabytes = BenchNumber(
        "line-megabytes", default: 2_048, help: "size of the file that is one line, in MiB")
    static let runs = BenchNumber("runs", default: 2, help: "imports of the rows by each program, taking turns")
    static let directory = Option<String>(
        "dir", value: "PATH", completes: .file, help: "where the files and catalogs go (default: the temporary folder)")
    static let bookshelf = Option<String>(
        "bookshelf", value: "PATH", completes: .file, help: "the bookshelf executable (default: beside this one)")
    static let reimportBooks = BenchNumber(
        "reimport-books", default: 100_000, help: "books of the Goodreads-shaped export imported twice (0: none)")
    static let options: [any OptionDeclaration] = [megabytes, lineMegabytes, runs, reimportBooks, directory, bookshelf]

    static let details = """
        The rows are "Bench book N,Author N" under the header title,author. Each import goes into a
        new file: `bookshelf import` into a new catalog (which also builds and stores its search
        index while the scope holds at most a million books, and past that leaves it to the next
        program that searches), `sqlite3 DB ".import --csv FILE books"` into a new database (a
        table of two text columns, no index). Peak RSS is each child's own, from /usr/bin/time.
        The one-line file is a quoted title of that many bytes: bookshelf must refuse it (exit 1)
        without holding it. Target: under 200 MB of peak RSS for both files. sqlite3 must be on
        PATH (Debian: sqlite3).
        --megabytes 0 or --line-megabytes 0 leaves that file out.
        Then a Goodreads-shaped export of --reimport-books books is imported into a new catalog,
        1% of its books are edited here and 1% of its rows changed, and it is imported again:
        both imports' times and peak RSS (target: the re-import of 100,000 under 20 s).
        """

    static func run(_ arguments: ParsedArguments) async throws {
        let rowBytes = try arguments.value(megabytes) << 20
        let lineBytes = try arguments.value(lineMegabytes) << 20
        let runs = max(1, try arguments.value(Self.runs))
        let folder = URL(
            fileURLWithPath: arguments.value(directory) ?? FileManager.default.temporaryDirectory.path
        ).appendingPathComponent("bookshelf-bench-import-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bookshelf =
            arguments.value(Self.bookshelf)
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("bookshelf").path
        guard FileManager.default.isExecutableFile(atPath: bookshelf) else {
            throw BenchError("no bookshelf executable at \(bookshelf) (build it, or give --bookshelf)")
        }
        #if DEBUG
            print("warning: debug build; use `swift build -c release` for real figures")
        #endif
        if rowBytes > 0 { try compareRows(bytes: rowBytes, runs: runs, folder: folder, bookshelf: bookshelf) }
        if lineBytes > 0 {
            let line = folder.appendingPathComponent("line.csv").path
            try writeLine(to: line, bytes: lineBytes)
            let refused = try CliBench.spawn(
                bookshelf, ["import", line, "--db", folder.appendingPathComponent("line.sqlite").path], stdin: nil)
            print(describe("one line of \(lineBytes >> 20) MiB, refused", refused, rows: nil))
        }
        if rowBytes > 0 || lineBytes > 0 { print("target: under 200 MB of peak RSS for each file") }

        let reimportCount = try arguments.value(reimportBooks)
        if reimportCount > 0 { try await ReimportBench.run(books: reimportCount, folder: folder, bookshelf: bookshelf) }
    }

    /// Imports of the file of valid rows by bookshelf and by sqlite3, taking turns.
    private static func compareRows(bytes rowBytes: Int, runs: Int, folder: URL, bookshelf: String) throws {
        let sqlite3 = executableOnPath("sqlite3")
        let rows = folder.appendingPathComponent("rows.csv").path
        let count = try writeRows(to: rows, bytes: rowBytes)
        print("rows: \(count) valid rows, \(rowBytes >> 20) MiB (\(rows))")

        var mine: [CliBench.Sample] = [], theirs: [CliBench.Sample] = []
        for run in 0..<runs {
            func bookshelfRun() throws {
                let db = folder.appendingPathComponent("catalog-\(run).sqlite").path
                mine.append(try CliBench.spawn(bookshelf, ["import", rows, "--db", db], stdin: nil))
                try removeCatalog(db)
            }
            func sqliteRun() throws {
                guard let sqlite3 else { return }
                let db = folder.appendingPathComponent("sqlite3-\(run).db").path
                theirs.append(try CliBench.spawn(sqlite3, [db, ".import --csv \(rows) books"], stdin: nil))
                try removeCatalog(db)
            }
            // Taking turns: whoever went first last time goes second now.
            if run % 2 == 0 {
                try bookshelfRun()
                try sqliteRun()
            } else {
                try sqliteRun()
                try bookshelfRun()
            }
        }
        try FileManager.default.removeItem(atPath: rows)
        for (run, sample) in mine.enumerated() {
            print(describe("bookshelf import, run \(run + 1)", sample, rows: count))
        }
        for (run, sample) in theirs.enumerated() {
            print(describe("sqlite3 .import,  run \(run + 1)", sample, rows: count))
        }
        if sqlite3 == nil { print("sqlite3: NOT INSTALLED (apt-get install sqlite3); no comparison") }
        if !theirs.isEmpty {
            let mineRate = CliBench.median(mine.map { Double(count) / ($0.wall.milliseconds / 1_000) })
            let theirRate = CliBench.median(theirs.map { Double(count) / ($0.wall.milliseconds / 1_000) })
            print(
                String(
                    format: "rows/s (medians): bookshelf %.0f, sqlite3 %.0f: bookshelf at %.2f of sqlite3's rate",
                    mineRate, theirRate, mineRate / theirRate))
        }
    }

    static func describe(_ label: String, _ sample: CliBench.Sample, rows: Int?) -> String {
        var text =
            label
            + String(
                format: ": %.1f s, peak RSS %.1f MB", (sample.wall.milliseconds / 1_000), Double(sample.peakKB) / 1024)
        if let rows { text += String(format: ", %.0f rows/s", Double(rows) / (sample.wall.milliseconds / 1_000)) }
        return text
    }

    /// Writes the header and rows until `bytes`; returns how many rows.
    static func writeRows(to path: String, bytes: Int) throws -> Int {
        guard let file = fopen(path, "w") else { throw BenchError("cannot write \(path)") }
        defer { fclose(file) }
        var written = fputs("title,author\n", file) >= 0 ? 13 : 0
        var count = 0
        var batch = ""
        while written < bytes {
            let row = "Bench book \(count),Author \(count % 9_973)\n"
            batch += row
            written += row.utf8.count
            count += 1
            if batch.utf8.count > 1 << 20 {
                fputs(batch, file)
                batch = ""
            }
        }
        fputs(batch, file)
        return count
    }

    /// One quoted title of `bytes` bytes, then an author: a single line.
    static func writeLine(to path: String, bytes: Int) throws {
        guard let file = fopen(path, "w") else { throw BenchError("cannot write \(path)") }
        defer { fclose(file) }
        fputs("title,author\n\"", file)
        let block = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        var left = bytes
        while left > 0 {
            let part = min(left, block.count)
            guard fwrite(block, 1, part, file) == part else { throw BenchError("cannot write \(path)") }
            left -= part
        }
        fputs("\",Author\n", file)
    }

    static func removeCatalog(_ path: String) throws {
        for suffix in ["", "-wal", "-shm", ".index"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
