import BookCatalog
import BookshelfTestSupport
import CommandLineOptions
import Foundation
import SQLiteCatalog

/// Search latency on a large SQLite catalog, through the whole stack the app uses
/// (BookRepository -> SQLiteBookRemote) and through the raw SQLite C API with FTS5.
enum SearchBench: BenchMode {
    static let name = "search"
    static let summary = "search latency per query class on an SQLite catalog (p50/p99, peak memory)"

    static let count = Option<[Int]>.wholeNumbers(
        "count", value: "N[,N...]",
        help: """
            books in the catalog (default 1000000). Several counts, N,N,...: scaling, the
            same figures for each count, one column each (search p50/p99 per class, index
            size and where it is held, peak and anonymous memory, index build, open -> first
            result with the stored index missing, 10,000 changes behind and current, catch-up
            after 10,000 external edits); every state is measured in a fresh process.
            """)
    static let defaultCount = 1_000_000
    static let scale = Flag("scale", help: "scaling (as for several counts) for a single count")
    static let db = Option<String>(
        "db", value: "PATH", completes: .file,
        help: """
            catalog file; reused when it holds exactly N benchmark books, rebuilt
            otherwise (default: bookshelf-bench-N.sqlite in the temporary directory).
            When scaling: the directory for bookshelf-bench-N.sqlite of each count.
            """)
    static let iterations = BenchNumber(
        "iterations", default: 300, help: "timed searches per query class through the full stack")
    static let rawIterations = BenchNumber(
        "raw-iterations", default: 40, help: "timed searches per class through the raw C API")
    static let rebuildIndex = Flag(
        "rebuild-index",
        help: """
            discard the search index snapshot stored in the catalog first, so that
            opening builds the index (and stores it again) instead of loading it
            """)
    static let noRaw = Flag(
        "no-raw", help: "skip the raw SQLite/FTS5 reference (building its FTS5 index takes a while)")
    static let noFzf = Flag("no-fzf", help: "skip timing `fzf --filter` even if fzf is installed")
    static let onlyClass = Option<String>(
        "class", value: "NAME", help: "time only this query class (\"CJK\", \"series/tag\"): to profile one")
    static let options: [any OptionDeclaration] = [
        count, scale, db, iterations, rawIterations, rebuildIndex, noRaw, noFzf, onlyClass,
    ]

    /// One state of the index in a child process of the scaling run (SearchScaling).
    static let scalePhase = Option<String>("scale-phase", value: "PHASE", help: "a child of the scaling run")
    static let internalOptions: [any OptionDeclaration] = [scalePhase]

    static let details = """
        Scaling: bookshelf-bench search --count N,N,... [--db DIRECTORY] [--iterations N]
        """

    struct QueryClass {
        let name: String
        let queries: [SearchQuery]
    }

    static let classes: [QueryClass] = [
        QueryClass(name: "one letter", queries: "abcdefghilmnoprstw".map { SearchQuery(text: String($0)) }),
        QueryClass(
            name: "two letters",
            queries: ["th", "ma", "co", "st", "hi", "re", "an", "pa", "be", "de", "lo", "wi", "ka"]
                .map { SearchQuery(text: $0) }),
        QueryClass(
            name: "common word",
            queries: ["the", "history", "of", "garden", "river", "night", "love", "war"]
                .map { SearchQuery(text: $0) }),
        QueryClass(
            name: "multi-word",
            queries: [
                "hist rom", "the gar", "night riv", "a his of", "secret gard", "war and pe",
                "lost city",
            ].map { SearchQuery(text: $0) }),
        QueryClass(
            name: "author",
            queries: ["tolstoy", "murakami", "zoe", "marquez", "bronte", "achebe", "mary beard"]
                .map { SearchQuery(text: $0) }),
        QueryClass(name: "CJK", queries: ["歴史", "日本", "東京", "物語", "日本の", "村上"].map { SearchQuery(text: $0) }),
        QueryClass(
            name: "series/tag",
            queries: ["fantasy", "penguin", "myst", "rome cycle", "first edition", "gallimard", "日本文学"]
                .map { SearchQuery(text: $0) }),
        QueryClass(name: "ISBN", queries: isbnQueries.map { SearchQuery(text: $0) }),
        QueryClass(
            name: "no match", queries: ["zzqx", "qqqv wxj", "xylophonist", "日本 zzz"].map { SearchQuery(text: $0) }),
        QueryClass(name: "empty query", queries: [SearchQuery(text: "")]),
        QueryClass(
            name: "deep page",
            queries: [
                SearchQuery(text: "the", offset: 2_000), SearchQuery(text: "", offset: 100_000),
                SearchQuery(text: "a", offset: 5_000), SearchQuery(text: "hist", offset: 1_000),
            ]),
    ]

    /// Benchmark books' ISBNs as people type them: ISBN-13 plain and hyphenated, and ISBN-10.
    static let isbnQueries = [3, 1_234, 98_765].compactMap(BenchDetails.isbn(ordinal:)).flatMap { isbn in
        [isbn, "\(isbn.prefix(3))-\(isbn.dropFirst(3))", ISBN.tenDigitForm(of: isbn) ?? isbn]
    }

    static func run(_ arguments: ParsedArguments) async throws {
        let counts = try arguments.value(Self.count, default: [defaultCount])
        let iterations = max(1, try arguments.value(Self.iterations))
        if let phase = arguments.value(scalePhase), let path = arguments.value(db), counts.count == 1 {
            // A child of the scaling run: one state of the index, in a process of its own.
            return try await SearchScaling.runPhase(phase, path: path, count: counts[0], iterations: iterations)
        }
        if counts.count > 1 || arguments.isSet(scale) {
            let directory = arguments.value(db) ?? FileManager.default.temporaryDirectory.path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw BenchError("when scaling, --db names a directory (for bookshelf-bench-N.sqlite of each count)")
            }
            return try await SearchScaling.run(counts: counts, directory: directory, iterations: iterations)
        }
        let only = arguments.value(onlyClass)
        if let only, !classes.contains(where: { $0.name == only }) {
            throw BenchError(
                "--class: no class \"\(only)\"; the classes are \(classes.map(\.name).joined(separator: ", "))")
        }
        let count = counts[0]
        let rawIterations = max(1, try arguments.value(Self.rawIterations))
        let path =
            arguments.value(db)
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("bookshelf-bench-\(count).sqlite").path
        #if DEBUG
            print("warning: debug build; use `swift run -c release bookshelf-bench search` for real figures")
        #endif

        let catalog = try prepareCatalog(path: path, count: count)
        if arguments.isSet(rebuildIndex) { try catalog.discardSearchSnapshots() }
        print("peak memory before opening: \(peakMemory())")

        // What a user waits for: opening the catalog and a remote, then the first search. The
        // remote loads (or builds) its index in the background from the moment it is made.
        let clock = ContinuousClock()
        let openStart = clock.now
        let opened = try SQLiteCatalog.open(path: path, create: false)
        let remote = try opened.remote(account: "bench")
        let repository = BookRepository(remote: remote)
        let first = try await repository.search(SearchQuery(text: "a"))
        let openToFirst = clock.now - openStart
        let (index, stored) = try await remote.searchIndexReport()
        let how = index.origin == .built ? "built from the books" : "loaded from the catalog's snapshot"
        print("open → first result: \(openToFirst.formatted) (\"a\" matches \(first.total))")
        print("search index: \(how) in \(index.duration.formatted), \(index.bytes / 1_000) kB for \(index.books) books")
        if index.origin == .built {
            print(
                stored
                    ? "index stored in the catalog (included in open → first result)"
                    : "index NOT stored in the catalog (another writer held the lock?)")
        }
        print("peak memory after the first search: \(peakMemory())")
        let table = try await ClassTable.measure(repository, iterations: iterations, only: only)
        table.print(title: "full stack: BookRepository -> SQLiteBookRemote, \(iterations) searches per class")
        var fullP50: [String: Duration] = [:]
        for row in table.rows { fullP50[row.name] = row.timings.p50 }
        print("peak memory: \(peakMemory())")

        if !arguments.isSet(noRaw) {
            try rawReference(path: path, iterations: rawIterations, fullP50: fullP50)
        }
        if !arguments.isSet(noFzf) {
            try fzfPeer(catalog: catalog)
        }
    }

    /// Opens the catalog at `path`, rebuilding it unless it holds exactly `count` books.
    static func prepareCatalog(path: String, count: Int) throws -> SQLiteCatalog {
        if FileManager.default.fileExists(atPath: path) {
            let existing = try SQLiteCatalog.open(path: path, create: false)
            if try existing.bookCount(scope: nil) == count,
                try existing.accounts().contains(where: { $0.name == "bench" }),
                try RawSQLiteSearch(path: path).hasBookRecords()
            {
                print("reusing \(path) (\(count) books)")
                return existing
            }
            print("\(path) holds other data; rebuilding it")
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "bench", role: .editor, scope: "main"))
        let clock = ContinuousClock()
        let start = clock.now
        try catalog.insertBooks(BenchBooks(count: count), scope: "main") { done in
            if done % 100_000 == 0 { print("  inserted \(done) books") }
        }
        print("built \(path): \(count) books in \((clock.now - start).formatted)")
        return catalog
    }

    static func rawReference(path: String, iterations: Int, fullP50: [String: Duration]) throws {
        let raw = try RawSQLiteSearch(path: path)
        let clock = ContinuousClock()
        let start = clock.now
        if try raw.prepareIndex() { print("\nbuilt the reference FTS5 index in \((clock.now - start).formatted)") }
        print(
            "\nraw C API reference: FTS5 MATCH count(*) + page ordered by folded title (no rank tiers), \(iterations) per class"
        )
        print("class          p50          p99    full-stack p50 / raw p50")
        for queryClass in classes {
            var timings = Timings()
            for iteration in 0..<iterations {
                let query = queryClass.queries[iteration % queryClass.queries.count]
                let words = SearchTerms(query.text).words.map { $0.map { $0.precomposedStringWithCanonicalMapping } }
                let match = RawSQLiteSearch.match(words: words)
                let clock = ContinuousClock()
                let start = clock.now
                _ = try raw.search(match: match, scope: "main", limit: query.limit, offset: query.offset)
                timings.record(clock.now - start)
            }
            let ratio = (fullP50[queryClass.name] ?? .zero).milliseconds / max(timings.p50.milliseconds, 0.000_001)
            print(
                "\(queryClass.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(timings.p50.formatted)  \(timings.p99.formatted)    \(String(format: "%.3f", ratio))"
            )
        }
        print("peak memory: \(peakMemory())")
    }

    /// Times `fzf --filter` over the same titles, as a peer: a fuzzy matcher, not the same semantics.
    static func fzfPeer(catalog: SQLiteCatalog) throws {
        guard let fzf = executableOnPath("fzf") else {
            print("\nfzf: not installed; peer comparison skipped")
            return
        }
        let titles = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bookshelf-bench-titles-\(getpid()).txt")
        defer { try? FileManager.default.removeItem(at: titles) }
        try RawSQLiteSearch(path: catalog.path).writeTitles(to: titles)
        print("\nfzf --filter over the same titles (a whole process per query, fuzzy semantics)")
        for text in ["a", "th", "history", "hist rom", "歴史", "zzqx"] {
            var timings = Timings()
            for _ in 0..<5 {
                let clock = ContinuousClock()
                let start = clock.now
                try ChildProcess.run([fzf, "--filter", text], input: titles.path)
                timings.record(clock.now - start)
            }
            print("  \(text.padding(toLength: 10, withPad: " ", startingAt: 0)) p50 \(timings.p50.formatted)")
        }
    }
}
