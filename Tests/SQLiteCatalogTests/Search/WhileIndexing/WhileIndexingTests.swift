import BookCatalog
import Foundation
@testable import SQLiteCatalog
@testable import SearchEngine
import TestTags
import Testing

/// Answers while no index can answer: the books table, its copy, kept scans, their first matches and
/// matches in order, and the title order (`BooksTableSearch`, `RecentScans`, `BooksCopy`,
/// `LeadingMatches`, `MatchOrder`, `TitleOrderPage`): exactly what the index would answer.
@Suite struct WhileIndexingTests: SearchIndexTesting {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// A word query answered from the books table because the index is being built says so on
    /// its page (the screen explains the wait with it); the list of all books, quick there,
    /// does not; and once the index is ready, no page does.
    @Test func aWordQueryAnsweredWhileTheIndexIsBuiltSaysSo() async throws {
        let path = directory.path("catalog.sqlite")
        let (_, books) = try makeCatalog(books: 120, path: path)
        let build = DispatchSemaphore(value: 0)
        defer { build.signal() }  // should a search throw first, the build thread is not left waiting
        let reopened = try SQLiteCatalog.open(path: path, create: false, beforeIndexBuild: { build.wait() })
        let remote = try reopened.remote(account: "reader")
        for query in ["a", "hist rom"] {
            let page = try await remote.search(SearchQuery(text: query, limit: 20))
            #expect(page.answeredWhileIndexing, "\(query)")
            #expect(
                page.records
                    == Array(
                        matches(of: SearchTerms(query), in: books).prefix(20)))
        }
        #expect(try await !remote.search(SearchQuery(text: "", limit: 20)).answeredWhileIndexing)
        build.signal()
        #expect(try await remote.searchIndexReport().report.origin == .built)
        for query in ["a", "hist rom", ""] {
            #expect(try await !remote.search(SearchQuery(text: query, limit: 20)).answeredWhileIndexing, "\(query)")
        }
    }

    /// While the index is built, a typed query that narrows an earlier one ("hi" after "h") is
    /// answered from that scan's matching rows and the rows changed since; one that does not
    /// (another word, or a character the earlier prefix does not begin: "कि" after "क") reads
    /// the table again. Either way the pages and totals are what the committed books give,
    /// also when another program renamed a book out of or into the matches, or added one,
    /// between two keys.
    @Test func typingWhileTheIndexIsBuiltNarrowsEarlierScansExactly() async throws {
        let path = directory.path("typing.sqlite")
        let (catalog, _) = try makeCatalog(books: 400, path: path)
        let hindi = try catalog.addBook(NewBook(title: "किताब घर", author: ""), scope: "main")
        _ = try catalog.addBook(NewBook(title: "कमल", author: ""), scope: "main")
        // "क" does not begin "किताब" as a character (the vowel sign joins it), "कि" does.
        #expect(!SearchTerms("क").matches(hindi) && SearchTerms("कि").matches(hindi))
        let build = DispatchSemaphore(value: 0)
        defer { build.signal() }
        let reader = try heldReader(path, build)
        let writer = try catalog.remote(account: "editor")

        enum Change {
            case renameMatchOut(of: String), renameIntoMatches(of: String, title: String), add(title: String)
        }
        func apply(_ change: Change) async throws {
            let committed = try committedBooks(path, scope: "main")
            switch change {
            case let .renameMatchOut(of: query):
                let book = try #require(committed.first { SearchTerms(query).matches($0) })
                _ = try await writer.save(
                    SaveRequest(id: book.id, title: "Quiet", author: "", expectedRevision: book.revision))
            case let .renameIntoMatches(of: query, title):
                let book = try #require(committed.first { !SearchTerms(query).matches($0) })
                _ = try await writer.save(
                    SaveRequest(id: book.id, title: title, author: "", expectedRevision: book.revision))
            case let .add(title):
                _ = try catalog.addBook(NewBook(title: title), scope: "main")
            }
        }
        // What is typed, and what another program does first. Most narrow a query typed before
        // ("hi" after "h"), some narrow none ("ro", "कि" after "क"): `strategyCases` says which
        // way each kind is answered.
        let steps: [(text: String, change: Change?)] = [
            ("h", nil), ("hi", nil), ("his", nil),
            ("hist", .renameMatchOut(of: "hist")),
            ("hist r", .renameIntoMatches(of: "hist", title: "History of Rivers")),
            ("hist ro", .add(title: "Historic Roads")), ("hist r", .add(title: "Histories Retold")),
            ("hi-", nil), ("hi-f", .renameIntoMatches(of: "hi-f", title: "Hi-Fi Sound")),
            ("ro", nil), ("alp", nil), ("क", nil), ("कि", nil), ("कि घ", nil),
        ]
        for step in steps {
            if let change = step.change { try await apply(change) }
            let terms = SearchTerms(step.text)
            let expected = try matches(of: terms, in: committedBooks(path, scope: "main"))
            #expect(!expected.isEmpty, "\(step.text)")
            for (limit, offset) in [(50, 0), (3, 2)] {
                let page = try await reader.search(SearchQuery(text: step.text, limit: limit, offset: offset))
                let wanted = Array(expected.dropFirst(offset).prefix(limit))
                #expect(page.records == wanted && page.total == expected.count, "\(step.text) \(limit) \(offset)")
                #expect(page.answeredWhileIndexing)
            }
        }
        build.signal()
        #expect(try await reader.searchIndexReport().report.origin == .built)
        try await expectExactPages("hist r", [(50, 0)], reader, try committedBooks(path, scope: "main"))
    }

    /// While the index is built, the app may have a page before its count
    /// (`SearchQuery.countLater`): when the page is all books whose titles begin with the
    /// first word, it is read in title order from the title index, including titles that begin
    /// with punctuation (whose keys sort before the letters, or between digits and letters),
    /// and it is exactly the page the committed books give, with a count so far that is never
    /// more than the matches. Otherwise (the page needs other books, or a title whose key
    /// begins beyond ASCII) the whole answer comes, counted. The same query without
    /// `countLater` gives the same page and the exact count.
    @Test func aPageBeforeItsCountIsTheCommittedBooksPage() async throws {
        let path = directory.path("page-first.sqlite")
        let (catalog, _) = try makeCatalog(books: 200, path: path)
        let titles =
            [
                "\"Hello,\" said the Hare", "[Hidden] Rooms", "...Hope Remains", "¿Hay alguien?", "“Hark,” the Herald",
                "Hay Fever", "Haystack Nights", "Hayride", "O'Brien's Pub", "O'Hara's Way", "1984 Revisited",
                "1001 Nights", "The House", "(1) Hymns", "日本の歴史", "「日本」の心", "«日々»", "— 日記 —", "本日の日",
                "の日", "にほんご", "Ωmega Point", "Я и ты", "¡Ωmega!", "‹Ωmega›",
            ]
            + (0..<60).map { "Harbor Lights \($0)" } + (0..<30).map { "日誌 \($0)" }
        try catalog.insertBooks(titles.map { NewBook(title: $0, author: "") }, scope: "main")
        let build = DispatchSemaphore(value: 0)
        defer { build.signal() }
        let reader = try heldReader(path, build)
        // The counted searches go to another remote, so that the matches they keep do not
        // answer the reader's pages first (`LeadingMatches`).
        let counter = try heldReader(path, build)
        defer { build.signal() }  // the top one releases the reader's
        let books = try committedBooks(path, scope: "main")
        var titleOrderAnswers = 0
        for text in [
            "h", "ha", "hay", "hark", "hel", "hid", "hop", "o'b", "1", "the h", "h the", "harbor 1", "hymn", "zzz",
            "日", "日本", "日誌 1", "の", "ω", "я и",
        ] {
            let terms = SearchTerms(text)
            let expected = matches(of: terms, in: books)
            for (limit, offset) in [(50, 0), (5, 0), (3, 2), (10, 45)] {
                let wanted = Array(expected.dropFirst(offset).prefix(limit))
                let exactCount = TotalCount(
                    counted: expected.count, offset: offset, shown: wanted.count,
                    hasMore: offset + wanted.count < expected.count)
                // The title order can give the page when its first offset + limit books all rank
                // first and have keys beginning at or below the query's first character (those
                // beginning with punctuation above it sort after all that begin with it).
                let firstOnes = expected.prefix(offset + limit)
                let lead = text.unicodeScalars.first!.value
                let titleOrderCan =
                    firstOnes.count == offset + limit
                    && firstOnes.allSatisfy {
                        terms.rank($0) == 0 && SearchTerms.fold($0.title).unicodeScalars.first!.value <= lead
                    }
                let query = SearchQuery(text: text, limit: limit, offset: offset, countLater: true)
                let page = try await reader.search(query)
                let answer = page.source
                #expect(page.records == wanted, "\(text) \(limit) \(offset)")
                // An earlier scan's first matches are asked before the title order, and may
                // hold the page too (`aPageFromAnEarlierScansFirstMatchesIsTheCommittedBooksPage`).
                if answer == .leadingMatches || answer == .titleOrder || answer == .orderedMatches {
                    if answer == .titleOrder { titleOrderAnswers += 1 }
                    #expect(titleOrderCan || answer != .titleOrder, "\(text) \(limit) \(offset)")
                    guard case let .counting(seen) = page.totalCount else {
                        Issue.record("\(text) \(limit) \(offset): \(page.totalCount), not counting")
                        continue
                    }
                    #expect(seen >= offset + wanted.count && seen <= expected.count, "\(text) \(limit) \(offset)")
                } else {
                    // A query narrowing a kept scan of few rows (the reader's own whole answers,
                    // "h" among them) is answered whole from it, counted.
                    #expect(
                        !titleOrderCan || answer == .earlierScan,
                        "\(text) \(limit) \(offset): the title order holds the page")
                    #expect(page.totalCount == exactCount, "\(text) \(limit) \(offset)")
                }
                let counted = try await counter.search(query.countingNow)
                #expect(
                    counted.records == wanted && counted.totalCount == exactCount, "\(text) \(limit) \(offset) counted")
            }
        }
        #expect(titleOrderAnswers >= 8, "the scenario gives the title order pages to answer: \(titleOrderAnswers)")
        // Keys beginning with punctuation sort first, and these titles begin with "h" words.
        let first = try await reader.search(SearchQuery(text: "h", limit: 3, countLater: true))
        #expect(first.records.map(\.title) == ["\"Hello,\" said the Hare", "...Hope Remains", "[Hidden] Rooms"])
        // So do keys beginning with punctuation beyond ASCII below the first character ("«", "—"
        // and "「" below "日", "¡" below "ω", in UTF-8 as in code points); those above it ("‹"
        // above "ω") sort after every key beginning with it.
        let reopened = try heldReader(path, build)
        let beyondASCII = try await reopened.search(SearchQuery(text: "日", limit: 3, countLater: true))
        #expect(beyondASCII.records.map(\.title) == ["«日々»", "— 日記 —", "「日本」の心"])
        let greek = try await reopened.search(SearchQuery(text: "ω", limit: 2, countLater: true))
        #expect(greek.records.map(\.title) == ["¡Ωmega!", "Ωmega Point"])
        build.signal()  // the three remotes' builds
        build.signal()
        build.signal()
        #expect(try await reader.searchIndexReport().report.origin == .built)
        let page = try await reader.search(SearchQuery(text: "h", limit: 5, countLater: true))
        #expect(page.totalCount.isExact, "the index counts at once")
    }

    /// A copy of the table that a cancelled scan left half made is resumed by the next scan
    /// after its last id, and then answers on its own: exactly what the committed books say,
    /// though another program renamed books on both sides of where the copy stopped and added
    /// books before and after it was finished.
    @Test func aCopyOfTheTableLeftUnfinishedIsResumedExactly() async throws {
        let path = directory.path("copy.sqlite")
        var (catalog, books) = try makeCatalog(books: 300, path: path)
        // A token that begins with a letter's byte but not with it as a character ("q" and a
        // spacing vowel sign) does not match that letter.
        let marked = try catalog.addBook(
            NewBook(title: "Q\u{093F}uiet zebra", author: "Z\u{093F}oe Ray"), scope: "main")
        #expect(!SearchTerms("q").matches(marked) && SearchTerms("z").rank(marked) == 1)
        books.insert(marked, at: 0)
        // Enough books beginning with "l" that the best are trimmed, and one whose key (with its
        // leading apostrophe) sorts before all of them though its terms do not.
        try catalog.insertBooks((0..<300).map { NewBook(title: "Lamp \($0)") }, scope: "main")
        _ = try catalog.addBook(NewBook(title: "'Lamp Last"), scope: "main")
        let writer = try catalog.remote(account: "editor")
        let connection = try CatalogConnection.open(path: path, create: false, busyTimeout: .seconds(5))
        let scans = RecentScans(memory: BuildMemory(besideCatalog: path))
        let middle = books[books.count / 2].id
        // What a scan cancelled at `middle` leaves: the rows up to it, as of the catalog then.
        try connection.transaction(immediate: false) {
            let sequence = try connection.queryFirst("SELECT max(change_seq) FROM books") { $0.int(0) }!
            let copy = try #require(BooksCopy(sequence: sequence, memory: scans.memory))
            let statement = try connection.statement(
                """
                SELECT id, title_key, title_terms, author_terms, other_terms FROM books
                WHERE scope = 'main' AND id <= ?1 ORDER BY id
                """)
            try statement.bind([.int(middle)])
            defer { statement.reset() }
            while try statement.step() {
                #expect(
                    copy.append(
                        id: statement.int(0), key: statement.bytes(1), title: statement.bytes(2),
                        author: statement.bytes(3), other: statement.bytes(4)) != nil)
            }
            scans.copy = copy
        }
        func rename(_ book: BookRecord, _ title: String) async throws {
            let current = try await writer.load(id: book.id)
            _ = try await writer.save(
                SaveRequest(id: book.id, title: title, author: "", expectedRevision: current.revision))
        }
        try await rename(books[10], "Quokka Before")
        try await rename(books[books.count - 10], "Quokka After")
        _ = try catalog.addBook(NewBook(title: "Quokka Added"), scope: "main")
        func expectExact(
            _ text: String, from source: SearchStrategy, sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            let terms = SearchTerms(text)
            let expected = try matches(of: terms, in: committedBooks(path, scope: "main"))
            try connection.transaction(immediate: false) {
                let sequence = try connection.queryFirst("SELECT max(change_seq) FROM books") { $0.int(0) }!
                for (limit, offset) in [(50, 0), (4, 3)] {
                    scans.removeKeptScans()  // answered from the copy, not from the first page's matches
                    let found = try BooksTableSearch(connection: connection, scope: "main", recent: (scans, sequence))
                        .search(terms, offset: offset, limit: limit)
                    #expect(
                        found.ids == expected.dropFirst(offset).prefix(limit).map(\.id)
                            && found.total == expected.count,
                        "\(text) \(limit) \(offset)", sourceLocation: sourceLocation)
                    #expect(
                        found.strategy == (offset == 0 ? source : .booksCopy), "\(text)", sourceLocation: sourceLocation
                    )
                }
            }
        }
        try expectExact("quokka", from: .booksTable)
        #expect(scans.copy?.isComplete == true)
        try await rename(books[20], "Quokka Late")
        _ = try catalog.addBook(NewBook(title: "Quokka Added Later"), scope: "main")
        try expectExact("quok", from: .booksCopy)
        // One-letter queries are answered from each row's letter places (the copy holds `marked`).
        for text in ["a", "q", "z", "2", "h", "l", "e", "hist r", "東"] { try expectExact(text, from: .booksCopy) }
    }

    /// Books of one rank sharing their title (2,000 titled "Mur", by two authors) are kept four
    /// at a time among a scan's first matches: a narrower query looks past them ("mura" finds
    /// "Mural" at once), and where the rest of the group could come first it does not take
    /// its page from there; walking the scan's matches in result order (`MatchOrder`), it
    /// does, the group in id order. Every page is the committed books' page.
    @Test func aGroupOfOneTitleAmongTheFirstMatchesIsLookedPastExactly() throws {
        let path = directory.path("leading-groups.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        var books = (0..<2_000).map { NewBook(title: "Mur", author: $0 % 2 == 0 ? "Ann Reed" : "Rex Murakami") }
        books += (0..<300).map { NewBook(title: "Mural \($0)", author: "Ann Reed") }
        books += (0..<300).map { NewBook(title: "Zeta \($0)", author: "Ann Murakami") }
        books += (0..<300).map { NewBook(title: "Alpha \($0)", author: "Bo Murakami") }
        let reader = try BooksTableReader(
            path: path, books: books, shuffledBy: 11, into: catalog, keepingWholeMatchesUpTo: 0)
        let scans = reader.scans
        let mur = try reader.keptScan("mur")
        let groupRows = mur.leading.rows.filter { mur.leading.title(of: $0) == Array("mur".utf8) }
        #expect(groupRows.count == SearchTuning.leadingGroupBooks && groupRows.last?.groupContinues == true)
        var rowsUnordered = mur.rows
        rowsUnordered.dropOrder()
        let murUnordered = RecentScans.Scan(
            words: mur.words, sequence: mur.sequence, rows: rowsUnordered, leading: mur.leading)
        let committed = try committedBooks(path, scope: "main")
        // "mura": Mural ranks first; then by author "Alpha", the group's "Rex Murakami" books,
        // "Zeta". "mur r": the group by author ("Reed", "Rex"), its unkept books before "Mural".
        // "mu": every group book matches in its title, at places not kept.
        for (text, limit, offset, fromFirstMatches) in [
            ("mura", 50, 0, true), ("mura", 10, 295, true), ("mura", 10, 600, false),
            ("mura", 10, 1_595, false), ("mur r", 20, 0, false), ("mu", 20, 0, false),
        ] {
            for ordered in [false, true] {
                scans.removeKeptScans()
                scans.keep(ordered ? mur : murUnordered)
                let terms = SearchTerms(text)
                let expected = matches(of: terms, in: committed).map(
                    \.id)
                let page = try reader.search(text, limit: limit, offset: offset, pageFirst: true)
                #expect(
                    page.ids == Array(expected.dropFirst(offset).prefix(limit)), "\(text) \(limit) \(offset) \(ordered)"
                )
                // ("mu" narrows no kept scan.)
                let fromOrder = ordered && !fromFirstMatches && text != "mu"
                #expect(
                    (page.strategy == .leadingMatches) == fromFirstMatches,
                    "\(text) \(limit) \(offset) \(ordered): \(page.strategy)")
                #expect(
                    (page.strategy == .orderedMatches) == fromOrder,
                    "\(text) \(limit) \(offset) \(ordered): \(page.strategy)")
            }
        }
    }

    /// Through the remote, while the index is built: a query that narrows a kept scan of a few
    /// hundred books is answered whole from it, counted at once, rather than from the title
    /// order (which would read up to 1,024 titles for a page and count it afterwards).
    @Test func aQueryNarrowingASmallKeptScanIsAnsweredWholeAndCounted() async throws {
        let path = directory.path("small-scan.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "reader", role: .reader, scope: "main"))
        var books = (0..<500).map { NewBook(title: "Secret garden \($0)", author: "Ann Reed") }
        books += (0..<2_000).map { NewBook(title: "Zed \($0)", author: "Bo Li") }
        try catalog.insertBooks(books, scope: "main")
        let build = DispatchSemaphore(value: 0)
        defer { build.signal() }
        let reader = try heldReader(path, build)
        _ = try await reader.search(SearchQuery(text: "secret"))  // counted: its 500 matches are kept
        let page = try await reader.search(SearchQuery(text: "secret g", limit: 20, countLater: true))
        let committed = try committedBooks(path, scope: "main")
        let terms = SearchTerms("secret g")
        let expected = matches(of: terms, in: committed)
        #expect(page.records == Array(expected.prefix(20)))
        #expect(page.totalCount == TotalCount(counted: expected.count, offset: 0, shown: 20, hasMore: true))
    }

    /// Through the remote, while the index is built: a page from an earlier scan's first
    /// matches says its count is coming, and the same search counted gives the same page and
    /// the exact total.
    @Test func aPageFromAnEarlierScansFirstMatchesIsCountedAfterwards() async throws {
        let path = directory.path("leading-remote.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "reader", role: .reader, scope: "main"))
        try catalog.insertBooks(
            (0..<3_000).map { NewBook(title: "Book \($0)", author: "Haruki Murakami") }, scope: "main")
        let build = DispatchSemaphore(value: 0)
        defer { build.signal() }
        let reader = try heldReader(path, build)
        _ = try await reader.search(SearchQuery(text: "mur"))  // counted: its matches are kept
        let query = SearchQuery(text: "murak", limit: 20, countLater: true)
        let page = try await reader.search(query)
        guard case let .counting(seen) = page.totalCount else {
            Issue.record("\(page.totalCount), not counting")
            return
        }
        #expect(seen >= 20 && seen <= 3_000)
        let counted = try await reader.search(query.countingNow)
        #expect(
            counted.records == page.records
                && counted.totalCount == TotalCount(counted: 3_000, offset: 0, shown: 20, hasMore: true))
    }

    /// A search replaced by the next key stops walking the table's copy or an earlier scan's
    /// rows (a second or more at ten million books) instead of keeping the connection from
    /// the next key's search, whichever walk it is in: an earlier scan's rows, the copy's
    /// letter places, the copy's rows.
    @Test func aCancelledSearchStopsWalkingTheCopyAndTheKeptRows() async throws {
        let path = directory.path("cancelled.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.insertBooks(
            (0..<3_000).map { NewBook(title: "Quiet river \($0)", author: "Ann Reed") }, scope: "main")
        let queries: [(text: String, source: SearchStrategy)] = [
            ("river 1", .earlierScan), ("q", .booksCopy), ("rive", .booksCopy),
        ]
        /// Each search's answer's source, or "cancelled".
        let outcomes = try await Task { () throws -> [String] in
            let connection = try CatalogConnection.open(path: path, create: false, busyTimeout: .seconds(5))
            let scans = RecentScans(memory: BuildMemory(besideCatalog: path))
            func search(_ text: String) throws -> String {
                do {
                    return try connection.transaction(immediate: false) {
                        let sequence = try connection.queryFirst("SELECT max(change_seq) FROM books") { $0.int(0) }!
                        return try BooksTableSearch(connection: connection, scope: "main", recent: (scans, sequence))
                            .search(SearchTerms(text), offset: 0, limit: 10).strategy.rawValue
                    }
                } catch is CancellationError {
                    return "cancelled"
                }
            }
            // The table read once: the copy is whole and "river"'s matches are kept.
            var outcomes = [try search("river")] + (try queries.map { try search($0.text) })
            _ = try search("river")
            withUnsafeCurrentTask { $0?.cancel() }
            outcomes += try queries.map { try search($0.text) }
            return outcomes
        }.value
        let answered = [SearchStrategy.booksTable.rawValue] + queries.map(\.source.rawValue)
        #expect(outcomes == answered + queries.map { _ in "cancelled" })
    }

    /// Kept rows come back as they went in, a key equal to the title terms included; the scans
    /// kept stay within the budget, newest first; and a scan whose matches pass it keeps none.
    @Test func recentScansKeepTheirRowsWithinTheBudget() throws {
        func buffer(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
            Array(text.utf8).withUnsafeBufferPointer(body)
        }
        let rows = [
            (7, "the war", "the war", "tolstoy", "classic \u{1F} russia"), (9, "l'ete", "l ete", "", ""),
            (12, "zoo", "zoo", "a b c", "animals"),
        ]
        var scanned = ScannedRows()
        for (id, key, title, author, other) in rows {
            buffer(key) { key in
                buffer(title) { title in
                    buffer(author) { author in
                        buffer(other) { other in
                            scanned.append(id: id, key: key, title: title, author: author, other: other)
                        }
                    }
                }
            }
        }
        var read: [(Int, String, String, String, String)] = []
        try scanned.forEach { id, key, title, author, other, _ in
            read.append(
                (
                    id, String(decoding: key, as: UTF8.self), String(decoding: title, as: UTF8.self),
                    String(decoding: author, as: UTF8.self), String(decoding: other, as: UTF8.self)
                ))
        }
        #expect(read.map { "\($0)" } == rows.map { "\($0)" })
        // Keys equal to their titles are not stored twice: only "l'ete" is.
        let textBytes = rows.map { $0.2.utf8.count + $0.3.utf8.count + $0.4.utf8.count }.reduce(0, +)
        #expect(scanned.byteCount == "l'ete".utf8.count + textBytes + rows.count * (8 + 16))

        // Four scans of a third of the budget: it holds three.
        let big = String(repeating: "x", count: SearchTuning.keptScansBytes / 3 - 1_000)
        let scans = RecentScans(memory: .anonymous)
        let typed = ["a", "ab", "abc", "abcd"]
        for (number, text) in typed.enumerated() {
            var rows = ScannedRows()
            for id in 0...number {
                buffer("k") { key in
                    buffer("t") { title in
                        buffer(String(big.prefix(big.count / (number + 1)))) { author in
                            rows.append(id: id, key: key, title: title, author: author, other: title)
                        }
                    }
                }
            }
            scans.keep(RecentScans.Scan(words: SearchTerms(text).words.map(QueryWord.init), sequence: 5, rows: rows))
        }
        func narrowest(_ text: String, at sequence: Int = 5) -> Int? {
            scans.narrowest(holdingMatchesOf: SearchTerms(text).words.map(QueryWord.init), at: sequence)?.rows.count
        }
        #expect(narrowest("a") == nil)  // the oldest went
        #expect(narrowest("ab") == 2)
        #expect(narrowest("abcde") == 2)  // every kept scan holds its matches: the one with fewest rows
        #expect(narrowest("abcde", at: 4) == nil)  // rows read after the catalog this search sees

        var judge = RowJudge(
            words: SearchTerms("x").words.map(QueryWord.init), wanted: 10, recordingUpTo: SearchTuning.keptScansBytes)
        for id in 0..<4 {
            buffer("x") { key in
                buffer("x") { title in
                    buffer(big) { author in judge.offer(id: id, key: key, title: title, author: author, other: title) }
                }
            }
        }
        #expect(judge.matched == nil)
        #expect(judge.answer(offset: 0, limit: 10).total == 4)
    }

    /// Past its limit, a scan's recording of copied rows drops their order first (`MatchOrder`:
    /// a rank and eight key bytes a row while recording), and the rows only when they pass the
    /// limit without it.
    @Test func aRecordingOverItsLimitDropsTheRowsOrderFirst() throws {
        let copy = try #require(
            BooksCopy(sequence: 1, memory: BuildMemory(besideCatalog: directory.path("catalog.sqlite"))))
        try Array("b".utf8).withUnsafeBufferPointer { text in
            for id in 1...1_000 {
                _ = try #require(copy.append(id: id, key: text, title: text, author: text, other: text))
            }
        }
        copy.complete()
        let words = SearchTerms("b").words.map(QueryWord.init)
        func recorded(upTo limit: Int) throws -> ScannedRows? {
            var judge = RowJudge(words: words, wanted: 10, recordingUpTo: limit)
            judge.copy = copy
            try copy.forEach(admitting: TokenStarts(requiredByAll: words)) { id, place, key, title, author, other in
                judge.offer(id: id, key: key, title: title, author: author, other: other, copiedAt: place)
            }
            return judge.matched
        }
        // An id and a place, 16 bytes a row; with the order, 25.
        let ordered = try recorded(upTo: 1_000 * 25)
        #expect(ordered?.count == 1_000 && ordered?.order != nil && ordered?.byteCount == 1_000 * 25)
        let unordered = try recorded(upTo: 1_000 * 25 - 1)
        #expect(unordered?.count == 1_000 && unordered?.order == nil && unordered?.byteCount == 1_000 * 16)
        #expect(try recorded(upTo: 1_000 * 16 - 1) == nil)
    }

    /// A search answered from the books table reads the whole table; one whose task was
    /// cancelled (the app cancels a search the next key replaced) stops instead of keeping the
    /// remote from the next search, and the remote answers the next one exactly.
    @Test func aCancelledSearchOfTheBooksTableStopsAndTheNextOneAnswers() async throws {
        let (catalog, books) = try makeCatalog(books: 300)
        let remote = try catalog.remote(account: "reader")
        let failure = await Task { () async -> (any Error)? in
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                _ = try await remote.searchWithoutIndex(SearchQuery(text: "a"))
                return nil
            } catch {
                return error
            }
        }.value
        #expect(failure is CancellationError, "\(String(describing: failure))")
        try await expectExactSearches(remote, books, withoutIndex: true)
    }

    /// A reader of the catalog at `path` whose index build waits for `build` to be signalled.
    private func heldReader(_ path: String, _ build: DispatchSemaphore) throws -> SQLiteBookRemote {
        try SQLiteCatalog.open(path: path, create: false, beforeIndexBuild: { build.wait() }).remote(account: "reader")
    }

}

/// The slow part of the suite above (each of these takes seconds: large generated catalogs, many
/// damaged copies); the rest stays in the inner loop (`Scripts/test fast`).
@Suite(.tags(.slow)) struct WhileIndexingScaleTests: SearchIndexTesting {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test func searchingWithoutTheIndexAnswersExactlyAsTheIndexDoes() async throws {
        let (catalog, books) = try makeCatalog(books: 300)
        let remote = try catalog.remote(account: "editor")
        _ = try await remote.searchIndexReport()
        try await expectExactSearches(remote, books)
        try await expectExactSearches(remote, books, withoutIndex: true)
        // After edits the index answers through its overlay; the table directly.
        var current = books
        var generator = GeneratedBooks(seed: 23)
        for step in 0..<40 {
            let index = (step * 13) % current.count
            let seed = generator.book()
            current[index] = try await remote.save(
                SaveRequest(
                    id: current[index].id, title: seed.title, author: seed.author,
                    expectedRevision: current[index].revision))
        }
        current.append(
            try catalog.addBook(NewBook(title: "100% _under_ score\\ cafe\u{301}", author: "O'Brien"), scope: "main"))
        try await expectExactSearches(remote, current)
        try await expectExactSearches(remote, current, withoutIndex: true)
        for text in ["100%", "_under", "score\\", "cafe", "café", "o'b", "%", "_"] {
            let indexed = try await remote.search(SearchQuery(text: text))
            let unindexed = try await remote.searchWithoutIndex(SearchQuery(text: text))
            #expect(indexed.records == unindexed.records && indexed.total == unindexed.total, "\(text)")
        }
    }

    /// A query that narrows a kept scan's query gets its page from that scan's first matches
    /// when they hold it, shown before its count: exactly the committed books' page, though
    /// narrowing moved books to later ranks or out of the matches, and though books were
    /// renamed and added since the scan; otherwise the whole answer comes, counted. With the
    /// scan's matches in result order (`MatchOrder`), every page comes from walking them,
    /// however far past the first matches it lies: titles sharing their first eight bytes
    /// ("Murder 1", "Murder 10", "Murder 100") are in order by their whole keys. The count so
    /// far never passes the matches, and is exact when the walk read them all.
    @Test func aPageFromAnEarlierScansFirstMatchesIsTheCommittedBooksPage() async throws {
        let path = directory.path("leading.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        // For "mur": 700 books of the first rank (Mural, Murder), 300 of the second (The
        // murmur), then 1,800 by author: more than the scan's 1,024 first matches.
        var books = (0..<1_500).map { NewBook(title: "Book \($0)", author: "Haruki Murakami") }
        books += (0..<400).map { NewBook(title: "Murder \($0)", author: $0 % 3 == 0 ? "Haruki Murakami" : "Ann Reed") }
        books += (0..<300).map { NewBook(title: "Mural \($0)", author: "Ann Reed") }
        books += (0..<300).map { NewBook(title: "The murmur \($0)", author: $0 % 2 == 0 ? "Ann Mural" : "Bo Li") }
        books += (0..<300).map { NewBook(title: "Quiet \($0)", author: "Ann Mural") }
        let reader = try BooksTableReader(
            path: path, books: books, shuffledBy: 7, into: catalog, keepingWholeMatchesUpTo: 0)
        let scans = reader.scans
        // The whole table's "mur", its first matches kept with it; taken before the changes below.
        let mur = try reader.keptScan("mur")
        #expect(mur.leading.count == SearchTuning.leadingMatches && mur.rows.order?.isSorted == true)
        var rowsUnordered = mur.rows
        rowsUnordered.dropOrder()
        let murUnordered = RecentScans.Scan(
            words: mur.words, sequence: mur.sequence, rows: rowsUnordered, leading: mur.leading)
        var leadingAnswers = 0
        func expectCommittedPages(ordered: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let committed = try committedBooks(path, scope: "main")
            for text in [
                "mura", "murd", "murm", "murak", "mural", "mur b", "mur 1", "murakami b", "murder 1", "murder 10",
                "mur zz",
            ] {
                let terms = SearchTerms(text)
                let expected = matches(of: terms, in: committed).map(
                    \.id)
                for (limit, offset) in [(50, 0), (5, 0), (3, 2), (10, 45), (10, 1_200)] {
                    // Kept: "mur" alone, nothing narrower.
                    scans.removeKeptScans()
                    scans.keep(ordered ? mur : murUnordered)
                    let page = try reader.search(text, limit: limit, offset: offset, pageFirst: true)
                    let wanted = Array(expected.dropFirst(offset).prefix(limit))
                    let about = "\(text) \(limit) \(offset), ordered: \(ordered)"
                    #expect(page.ids == wanted, "\(about)", sourceLocation: sourceLocation)
                    if page.strategy == .leadingMatches || page.strategy == .orderedMatches {
                        if page.strategy == .leadingMatches { leadingAnswers += 1 }
                        #expect(ordered || page.strategy == .leadingMatches, "\(about)", sourceLocation: sourceLocation)
                        if offset + wanted.count < expected.count {
                            #expect(
                                page.total >= offset + wanted.count && page.total <= expected.count, "\(about)",
                                sourceLocation: sourceLocation)
                        } else {
                            #expect(page.total == expected.count, "\(about)", sourceLocation: sourceLocation)
                        }
                    } else {
                        #expect(!ordered, "\(about): \(page.strategy)", sourceLocation: sourceLocation)
                        #expect(
                            page.strategy == .earlierScan
                                && page.total
                                    == min(expected.count, SearchIndex.countLimit(offset: offset, limit: limit)),
                            "\(about)", sourceLocation: sourceLocation)
                    }
                }
            }
        }
        try expectCommittedPages(ordered: false)
        #expect(leadingAnswers >= 20, "the scenario gives the first matches pages to answer")
        try expectCommittedPages(ordered: true)
        try await changeBooksSinceTheMurScan(catalog, path: path)
        leadingAnswers = 0
        try expectCommittedPages(ordered: false)
        #expect(leadingAnswers >= 20, "the scenario gives the first matches pages to answer after the changes")
        try expectCommittedPages(ordered: true)
    }

    /// A kept scan of more than an eighth of a whole copy's rows, and more than a few, is left
    /// for the copy, which is read in order; smaller ones, or any while the copy is unfinished,
    /// are narrowed.
    @Test func aLargeKeptScanIsLeftForTheCopy() throws {
        let scans = RecentScans(memory: BuildMemory(besideCatalog: directory.path("catalog.sqlite")))
        /// A copy of `count` rows, and a kept scan of its first `rows`.
        func copy(of count: Int) throws -> (BooksCopy, (_ rows: Int) -> RecentScans.Scan) {
            let copy = try #require(BooksCopy(sequence: 1, memory: scans.memory))
            var places: [BooksCopy.Place] = []
            try Array("b".utf8).withUnsafeBufferPointer { text in
                for id in 1...count {
                    places.append(try #require(copy.append(id: id, key: text, title: text, author: text, other: text)))
                }
            }
            return (
                copy,
                { count in
                    var rows = ScannedRows()
                    for row in 0..<count { rows.append(in: copy, at: places[row], mask: 0, rank: 0, keyPrefix: 0) }
                    return RecentScans.Scan(words: SearchTerms("b").words.map(QueryWord.init), sequence: 1, rows: rows)
                }
            )
        }
        let (large, ofLarge) = try copy(of: 200_000)
        scans.copy = large
        #expect(!scans.copyIsQuicker(than: ofLarge(25_001)))  // unfinished
        large.complete()
        #expect(!scans.copyIsQuicker(than: ofLarge(25_000)))  // an eighth
        #expect(scans.copyIsQuicker(than: ofLarge(25_001)))
        let (small, ofSmall) = try copy(of: 100_000)
        small.complete()
        scans.copy = small
        #expect(!scans.copyIsQuicker(than: ofSmall(SearchTuning.fewKeptRows)))  // more than an eighth, but few
        #expect(scans.copyIsQuicker(than: ofSmall(SearchTuning.fewKeptRows + 1)))
    }

    /// A scan of a few thousand matches keeps them all in order: a narrower query whose page
    /// lies past where the first 1,024 would end ("mur" after "mu": Murakami's books, after
    /// every title with a word beginning "mu") gets it from there, reading the scan in order
    /// only as far as the page; a page at the very end reads it all and is counted exactly.
    /// Every page is the committed books' page, before and after books change since the scan.
    @Test func aWholeScanAnswersANarrowerPageAnywhereInIt() async throws {
        let path = directory.path("leading-whole.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        // For "mu": 900 titles beginning "mu" (Music, Mural), 300 with "mu" later, then 2,000 by author.
        var books = (0..<600).map { NewBook(title: "Music \($0)", author: "Ann Reed") }
        books += (0..<300).map { NewBook(title: "Mural \($0)", author: $0 % 3 == 0 ? "Haruki Murakami" : "Bo Li") }
        books += (0..<300).map { NewBook(title: "The museum \($0)", author: "Ann Reed") }
        books += (0..<2_000).map { NewBook(title: "Book \($0)", author: $0 % 4 == 0 ? "Mura Ito" : "Haruki Murakami") }
        books += (0..<200).map { NewBook(title: "Quiet \($0)", author: "Ann Reed") }
        let reader = try BooksTableReader(
            path: path, books: books, shuffledBy: 13, into: catalog,
            keepingWholeMatchesUpTo: SearchTuning.wholeMatches)
        let scans = reader.scans
        let mu = try reader.keptScan("mu")
        #expect(mu.leading.isWhole && mu.leading.count == 3_200 && mu.rows.count == 3_200)
        func expectCommittedPages(sourceLocation: SourceLocation = #_sourceLocation) throws {
            let committed = try committedBooks(path, scope: "main")
            for text in ["mur", "mura", "murak", "mus", "mu b", "mura i", "murakami 1", "museum", "mu zz"] {
                let terms = SearchTerms(text)
                let expected = matches(of: terms, in: committed).map(
                    \.id)
                for (limit, offset) in [(50, 0), (5, 0), (10, 45), (10, 1_500), (20, max(0, expected.count - 5))] {
                    // Kept: "mu" alone, nothing narrower.
                    scans.removeKeptScans()
                    scans.keep(mu)
                    let page = try reader.search(text, limit: limit, offset: offset, pageFirst: true)
                    let wanted = Array(expected.dropFirst(offset).prefix(limit))
                    #expect(page.ids == wanted, "\(text) \(limit) \(offset)", sourceLocation: sourceLocation)
                    #expect(
                        page.strategy == .leadingMatches, "\(text) \(limit) \(offset): \(page.strategy)",
                        sourceLocation: sourceLocation)
                    if offset + wanted.count < expected.count {
                        #expect(
                            page.total >= offset + wanted.count && page.total <= expected.count,
                            "\(text) \(limit) \(offset)",
                            sourceLocation: sourceLocation)
                    } else {
                        // The page reached the last match: every match was seen.
                        #expect(
                            page.total == expected.count, "\(text) \(limit) \(offset)", sourceLocation: sourceLocation)
                    }
                }
            }
            // Murakami's first books come after every title with a word beginning "mu", yet the
            // page was placed before the scan was read to its end.
            scans.removeKeptScans()
            scans.keep(mu)
            let murakami = try reader.search("murakami", limit: 20, offset: 0, pageFirst: true)
            let expected = committed.filter(SearchTerms("murakami").matches).count
            #expect(murakami.strategy == .leadingMatches && murakami.total < expected, sourceLocation: sourceLocation)
        }
        try expectCommittedPages()
        try await changeBooksSinceTheMurScan(catalog, path: path)
        try expectCommittedPages()
    }
}

extension SearchIndexTesting {
    /// What the first-matches tests change after their scan, as the "editor" account: a book
    /// leaves the matches ("Mural 0"), one from outside them comes first ("Mura Aardvark"), one
    /// moves to the first rank ("Murakami Book"), and a new one by the author comes ("Aaa").
    fileprivate func changeBooksSinceTheMurScan(_ catalog: SQLiteCatalog, path: String) async throws {
        let writer = try catalog.remote(account: "editor")
        let committed = try committedBooks(path, scope: "main")
        func rename(_ title: String, to newTitle: String) async throws {
            let book = try #require(committed.first { $0.title == title })
            _ = try await writer.save(
                SaveRequest(id: book.id, title: newTitle, author: book.author, expectedRevision: book.revision))
        }
        try await rename("Mural 0", to: "Zebra")
        try await rename("Quiet 3", to: "Mura Aardvark")
        try await rename("Book 1", to: "Murakami Book")
        _ = try catalog.addBook(NewBook(title: "Aaa", author: "Murakami"), scope: "main")
    }
}

/// A catalog read as a remote reads it while its index is built: kept scans, the table's copy.
private struct BooksTableReader {
    let connection: Connection
    let scans: RecentScans

    /// Adds `books` to `catalog`'s "main" scope in an order shuffled by `seed` (ids then follow
    /// neither titles nor authors), and reads the catalog at `path`, keeping scans of at most
    /// `wholeLimit` matches whole (`LeadingMatches`; 0 keeps every scan's first matches only).
    init(
        path: String, books: [NewBook], shuffledBy seed: UInt64, into catalog: SQLiteCatalog,
        keepingWholeMatchesUpTo wholeLimit: Int
    ) throws {
        var books = books
        var generator = GeneratedBooks(seed: seed)
        for index in books.indices.reversed() { books.swapAt(index, generator.next(index + 1)) }
        try catalog.insertBooks(books, scope: "main")
        connection = try CatalogConnection.open(path: path, create: false, busyTimeout: .seconds(5))
        scans = RecentScans(memory: BuildMemory(besideCatalog: path), keepingWholeMatchesUpTo: wholeLimit)
    }

    /// The whole table's scan of `text`, kept with its first matches.
    func keptScan(_ text: String) throws -> RecentScans.Scan {
        _ = try search(text, limit: 50, offset: 0, pageFirst: false)
        return try #require(
            scans.narrowest(holdingMatchesOf: SearchTerms(text).words.map(QueryWord.init), at: .max))
    }

    /// The answer as of the catalog now; with `pageFirst`, the page alone from an earlier
    /// scan's first matches or its matches in order, when they hold it.
    func search(_ text: String, limit: Int, offset: Int, pageFirst: Bool) throws -> BooksTableSearch.Found {
        try connection.transaction(immediate: false) {
            let sequence = try connection.queryFirst("SELECT max(change_seq) FROM books") { $0.int(0) }!
            let search = BooksTableSearch(connection: connection, scope: "main", recent: (scans, sequence))
            let terms = SearchTerms(text)
            guard pageFirst else { return try search.search(terms, offset: offset, limit: limit) }
            return try search.pageFromFirstMatches(terms, offset: offset, limit: limit)
                ?? search.pageFromOrderedMatches(terms, offset: offset, limit: limit)
                ?? search.search(terms, offset: offset, limit: limit)
        }
    }
}
