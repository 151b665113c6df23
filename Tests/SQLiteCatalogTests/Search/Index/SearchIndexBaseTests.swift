import BookCatalog
import Foundation
@testable import SQLiteCatalog
@testable import SearchEngine
import TestTags
import Testing

/// The immutable base and its build: broad words' kept answers and places, the stored prefixes, a
/// collection that stops once settled, and where a build keeps its arrays (`SearchIndexBase`,
/// `BroadPrefixResults`, `BroadWordPlaces`, `StoredPrefixes`, `BuildMemory`).
@Suite struct SearchIndexBaseTests: SearchIndexTesting {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// The file stores the places of the broad short prefixes, and they are the places the
    /// postings give: same books anywhere, in the title, first in the title, for every prefix
    /// stored. Every prefix of one to three letters or digits that begins a token in at least a
    /// sixteenth of the books (counted from the books themselves) is stored.
    @Test func theStoredPrefixesArePlacesThePostingsGive() async throws {
        let path = directory.path("prefixes.sqlite")
        let (catalog, books) = try makeCatalog(books: 400, path: path)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        let file = try SnapshotFile(catalog: path)
        let base = try file.bytes.withUnsafeBytes { try SearchIndexSnapshot.decode(copying: $0) }
        var booksWith: [String: Int] = [:]
        for book in books {
            let text = BookText(title: book.title, author: book.author)
            let tokens = (text.titleTerms + " " + text.authorTerms).split(separator: " ")
            let prefixes = Set(
                tokens.flatMap { token in
                    (1...3).compactMap { length -> String? in
                        let prefix = token.prefix(length)
                        return prefix.count == length
                            && prefix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) ? String(prefix) : nil
                    }
                })
            for prefix in prefixes { booksWith[prefix, default: 0] += 1 }
        }
        var storedByLength = [0, 0, 0, 0]
        for (prefix, bookCount) in booksWith.sorted(by: { $0.key < $1.key }) {
            let words = try #require(base.compile(SearchTerms(prefix)))
            let code = try #require(StoredPrefixes.code(Array(prefix.utf8)))
            guard let fromFile = try base.storedPrefixes.places(ofPrefix: code, count: base.count) else {
                #expect(bookCount * 16 < base.count, "\(prefix), in \(bookCount) of \(base.count) books, is not stored")
                continue
            }
            storedByLength[prefix.count] += 1
            let fromPostings = try base.placesFromPostings(of: words[0])
            #expect(
                fromFile.anywhere == fromPostings.anywhere && fromFile.inTitle == fromPostings.inTitle
                    && fromFile.first == fromPostings.first, "\(prefix)")
        }
        #expect(storedByLength[1] >= 5 && storedByLength[2] >= 1, "stored by length: \(storedByLength)")
        try await expectExactSearches(catalog.remote(account: "reader"), books)
    }

    /// A one-letter query matching more books than are counted exactly is answered from kept
    /// matches (`BroadPrefixResults`): after other programs rename, move and add books, the
    /// pages and the "at least" total are still exactly what the books say, through the
    /// remote that kept them and through a new one catching up from the stored index.
    @Test func theBroadestQueriesStayExactAfterChanges() async throws {
        let path = directory.path("broad.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        // A fresh file numbers the rows 1, 2, 3... in insertion order.
        var current = (0..<12_000).map { index in
            BookRecord(id: index + 1, title: index % 3 == 2 ? "Beta \(index) and more" : "Alpha \(index)", revision: 1)
        }
        try catalog.insertBooks(current.map { NewBook(title: $0.title) }, scope: "main")
        let reader = try catalog.remote(account: "editor")
        #expect(try await reader.searchIndexReport().snapshotStored)
        let pages = [(50, 0), (100, 5_000), (10, 7_990), (20, 11_990)]
        try await expectExactPages("a", pages, reader, current)

        let writer = try SQLiteCatalog.open(path: path, create: false).remote(account: "editor")
        for (step, index) in stride(from: 0, to: 3_000, by: 75).enumerated() {
            let book = current[index]
            // Out of rank 0, moved within it, or moved to the front of it.
            let title = ["Zulu \(index)", "Alpha moved \(index)", "Aardvark \(index)"][step % 3]
            current[index] = try await writer.save(
                SaveRequest(id: book.id, title: title, author: "", expectedRevision: book.revision))
        }
        for number in 0..<5 { current.append(try catalog.addBook(NewBook(title: "Aa new \(number)"), scope: "main")) }
        try await expectExactPages("a", pages, reader, current)
        try await expectExactPages("a", pages, try catalog.remote(account: "editor"), current)
    }

    /// A build beside the catalog keeps its large arrays in nameless scratch files there (their
    /// pages are the page cache's, not the process's anonymous memory) and gives, byte for byte,
    /// the index an in-memory build gives. A directory where no file can be made gives the same
    /// index from ordinary allocations. Nothing is left in the directory, and the files are
    /// unmapped with the index.
    @Test func aBuildInScratchFilesGivesTheSameIndexAndLeavesNothingBehind() throws {
        let path = directory.path("scratch.sqlite")
        _ = try makeCatalog(books: 600, path: path)
        let folder = (path as NSString).deletingLastPathComponent
        let connection = try CatalogConnection.open(path: path, create: false, busyTimeout: .seconds(5))
        let before = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        func build(_ memory: BuildMemory) throws -> SearchIndexBase {
            try SearchIndexBuilder(connection: connection, scope: "main", memory: memory).build()
        }
        func stored(_ base: SearchIndexBase, _ name: String) throws -> Data {
            let file = directory.path(name)
            try SearchIndexSnapshot.write(base, scope: "main", snapshotID: 7, to: file)
            defer { unlink(file) }
            return try Data(contentsOf: URL(fileURLWithPath: file))
        }
        let reference = try stored(try build(.anonymous), "in-memory")
        do {
            let inFiles = try build(BuildMemory(besideCatalog: path))
            let scratch = Self.scratchMappings(in: folder)
            for (name, start) in [
                ("forward index", UnsafeRawPointer(inFiles.bookBytes.buffer.baseAddress!)),
                ("postings", UnsafeRawPointer(inFiles.postingBytes.buffer.baseAddress!)),
                ("ids", UnsafeRawPointer(inFiles.ids.words.buffer.baseAddress!)),
            ] {
                let address = UInt(bitPattern: start)
                #expect(scratch.contains { $0.contains(address) }, "the \(name) is not in a scratch file")
            }
            #expect(try stored(inFiles, "in-files") == reference)
        }
        #expect(Self.scratchMappings(in: folder).isEmpty, "scratch files still mapped after the index is gone")
        let fallback = try build(BuildMemory(besideCatalog: directory.path("no such folder/catalog.sqlite")))
        #expect(try stored(fallback, "fallback") == reference)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == before)
    }

    /// Files made beside a catalog named without a folder (its build's scratch files, a
    /// snapshot's temporaries) go to, and are looked for in, the working directory, not "/".
    @Test func filesBesideACatalogNamedWithoutAFolderAreInTheWorkingDirectory() {
        #expect(folder(holding: "books.sqlite") == ".")
        #expect(folder(holding: "shelf/books.sqlite") == "shelf")
        #expect(folder(holding: "/srv/books.sqlite") == "/srv")
        #expect(BuildMemory(besideCatalog: "books.sqlite").directory == ".")
    }

    /// Appended varints read back as written, across many growths of a scratch file (the
    /// mapping is remade over the longer file) and of an allocation (copied).
    @Test func growingBytesKeepWhatWasWrittenAcrossGrowths() throws {
        let values = (0..<20_000).map { UInt32(truncatingIfNeeded: $0 &* 2_654_435_761) >> UInt32($0 % 32) }
        var expected: [UInt8] = []
        for value in values {
            var offset = 0
            var encoded = [UInt8](repeating: 0, count: 5)
            encoded.withUnsafeMutableBufferPointer { VarInt.write(value, to: $0, at: &offset) }
            expected += encoded.prefix(offset)
        }
        let file = try #require(ScratchFile(in: directory.path(""), byteCount: 1))
        for bytes in [GrowingBytes(file), GrowingBytes(allocated: 1)] {
            for value in values { bytes.append(value) }
            let kept = bytes.withUnsafeBufferPointer { $0.elementsEqual(expected) }
            #expect(kept, "\(bytes.count) bytes written, \(expected.count) expected")
        }
    }

    /// The address ranges of this process's mappings of deleted build scratch files in `folder`.
    private static func scratchMappings(in folder: String) -> [ClosedRange<UInt>] {
        // Read to the end: /proc files have no size, and a read sized by it stops short.
        let maps = String(
            decoding: FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        return maps.split(separator: "\n").compactMap { line in
            guard line.contains(folder + "/.bookshelf-build-"), line.hasSuffix("(deleted)") else { return nil }
            let bounds = line.prefix { $0 != " " }.split(separator: "-").compactMap { UInt($0, radix: 16) }
            return bounds.count == 2 ? bounds[0]...(bounds[1] - 1) : nil
        }
    }
}

/// The slow part of the suite above (each of these takes seconds: large generated catalogs, many
/// damaged copies); the rest stays in the inner loop (`Scripts/test fast`).
@Suite(.tags(.slow)) struct SearchIndexBaseScaleTests: SearchIndexTesting {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// A collection that has its page (the first rank fills it) and its count (past the limit)
    /// stops reading there, and what it lists and counts is still what the books say: the
    /// first books of the first rank in result order, the total up to the limit, with a hidden
    /// book (a changed one) left out. Stretches of 64 books, so that 3,000 books make many.
    @Test func aCollectionStopsOnceItsPageAndCountAreSettled() throws {
        let path = directory.path("stretches.sqlite")
        let (_, books) = try makeCatalog(books: 3_000, path: path)
        let connection = try CatalogConnection.open(path: path, create: false, busyTimeout: .seconds(5))
        let base = try SearchIndexBuilder(connection: connection, scope: "main").build()
        let inOrder = inResultOrder(books)
        var hidden = Bitmap(count: base.count)
        for ordinal in stride(from: 5, to: base.count, by: 7) { hidden.insert(ordinal) }
        var stoppedEarly = 0
        for text in ["a", "h", "the", "e", "an", "of", "the a", "a t", "s e", "history of", "zzz"] {
            let terms = SearchTerms(text)
            guard let words = base.compile(terms) else { continue }
            for (cap, limit) in [(3, 40), (20, 300), (1, 1)] {
                for hide in [false, true] {
                    let shown = inOrder.enumerated().filter { !hide || !hidden.contains($0.offset) }
                    let firstRank = shown.filter { terms.matches($0.element) && terms.rank($0.element) == 0 }.map {
                        Int32($0.offset)
                    }
                    let total = shown.filter { terms.matches($0.element) }.count
                    var matches = SearchIndexBase.Matches(cap: cap, countLimit: limit)
                    try base.collect(words, hidden: hide ? hidden : nil, into: &matches, slotsPerStretch: 1)
                    let counted = matches.counts.reduce(0, +)
                    #expect(
                        matches.ordinals[0] == Array(firstRank.prefix(cap)) && min(counted, limit) == min(total, limit),
                        "\(text) cap \(cap) limit \(limit) hidden \(hide): listed \(matches.ordinals[0]), counted \(counted) of \(total)"
                    )
                    if counted < total { stoppedEarly += 1 }
                }
            }
        }
        #expect(stoppedEarly >= 10, "stopped early \(stoppedEarly) times")
    }

    /// A word of several tokens that most of its books hold only in a tag ("日本") or only in the
    /// author ("村上"): the books that may rank higher are judged first, then the others in result
    /// order until their rank holds the page and the count is past its limit. The pages and
    /// totals are what `SearchTerms` says, with and without hidden books, a small page judges a
    /// few of the thousand tagged books (or of the 750 by 村上春樹), not all of them, and only the
    /// books holding every token of the word are judged.
    @Test func aWordFoundMostlyOutsideTitlesStopsJudgingOncePageAndCountAreSettled() throws {
        let path = directory.path("tags.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        let newBooks = (0..<3_000).map { index -> NewBook in
            let tags: [String] = (index % 3 == 0 ? ["日本文学"] : []) + (index % 5 == 0 ? ["本日"] : [])
            let details = BookDetails(tags: tags)
            let author = index % 4 == 1 ? "村上春樹" : ""
            switch index % 100 {
            case 0: return NewBook(title: "日本の歴史 \(index)", details: details)
            case 1: return NewBook(title: "古い日本と村上 \(index)", author: author, details: details)
            case 2: return NewBook(title: "Book \(index)", author: "日本太郎", details: details)
            case 3: return NewBook(title: "本と日 \(index)", details: details)
            case 4...9: return NewBook(title: "猫の本 \(index)", author: author, details: details)
            default: return NewBook(title: "Book \(index)", author: author, details: details)
            }
        }
        try catalog.insertBooks(newBooks, scope: "main")
        let books = try committedBooks(path, scope: "main")
        let connection = try CatalogConnection.open(path: path, create: false, busyTimeout: .seconds(5))
        let base = try SearchIndexBuilder(connection: connection, scope: "main").build()
        let inOrder = inResultOrder(books)
        var hidden = Bitmap(count: base.count)
        for ordinal in stride(from: 4, to: base.count, by: 11) { hidden.insert(ordinal) }
        for text in ["日本", "日本文学", "本日", "日本 book", "文学", "村上", "村上 日本", "日本の"] {
            let terms = SearchTerms(text)
            let words = try #require(base.compile(terms), "\(text)")
            for (cap, limit) in [(3, 40), (20, 300), (1, 1), (50, 10_001)] {
                for hide in [false, true] {
                    let shown = inOrder.enumerated().filter { !hide || !hidden.contains($0.offset) }
                    let found = shown.filter { terms.matches($0.element) }
                    let page = found.sorted {
                        (terms.rank($0.element), $0.offset) < (terms.rank($1.element), $1.offset)
                    }
                    .prefix(cap).map { Int32($0.offset) }
                    var matches = SearchIndexBase.Matches(cap: cap, countLimit: limit)
                    try base.collect(words, hidden: hide ? hidden : nil, into: &matches)
                    let listed = Array(matches.ordinals.joined().prefix(cap))
                    let counted = matches.counts.reduce(0, +)
                    #expect(
                        listed == page && min(counted, limit) == min(found.count, limit),
                        "\(text) cap \(cap) limit \(limit) hidden \(hide): listed \(listed), expected \(page), counted \(counted) of \(found.count)"
                    )
                }
            }
        }
        let tagged = books.filter { $0.details.tags.contains("日本文学") }.count
        let byMurakami = books.filter { $0.author == "村上春樹" }.count
        #expect(tagged == 1_000 && byMurakami == 750)
        for text in ["日本", "村上"] {
            var small = SearchIndexBase.Matches(cap: 3, countLimit: 40)
            try base.collect(try #require(base.compile(SearchTerms(text))), hidden: nil, into: &small)
            #expect(small.booksJudged < 200, "\(text): judged \(small.booksJudged) books")
        }
        // "日本の": only the books holding all three characters somewhere are judged, not every
        // book with "の" in its title ("猫の本" has no "日").
        let holdingAll = books.filter { book in
            let text = book.title + book.author + book.details.tags.joined()
            return ["日", "本", "の"].allSatisfy { text.contains($0) }
        }
        var all = SearchIndexBase.Matches(cap: 50, countLimit: 10_001)
        try base.collect(try #require(base.compile(SearchTerms("日本の"))), hidden: nil, into: &all)
        let withNoInTitle = books.filter { $0.title.contains("の") }.count
        #expect(
            all.booksJudged == holdingAll.count && holdingAll.count < withNoInTitle,
            "judged \(all.booksJudged); \(holdingAll.count) hold 日, 本 and の, \(withNoInTitle) の in the title")
    }

    /// The broad words of multi-word queries are kept as bitmaps (`BroadWordPlaces`) and
    /// shared by later queries with the same word in any position: the answers stay exactly
    /// what the books say, including after other programs' edits, and in a new remote.
    @Test func multiWordQueriesOfBroadWordsStayExact() async throws {
        let path = directory.path("broad-words.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        // "alpha" and "beta" are in 6,000 of 9,000 books each: broad enough to be kept.
        var current = (0..<9_000).map { index in
            switch index % 3 {
            case 0: BookRecord(id: index + 1, title: "Alpha Beta \(index)", revision: 1)
            case 1: BookRecord(id: index + 1, title: "Beta \(index) Alpha", revision: 1, author: "Gamma")
            default: BookRecord(id: index + 1, title: "Gamma \(index) Beta", revision: 1, author: "Alpha Writer")
            }
        }
        try catalog.insertBooks(current.map { NewBook(title: $0.title, author: $0.author) }, scope: "main")
        let queries = ["a b", "b a", "alpha beta", "a be", "be al 1", "g a", "a w", "a a", "b a g"]
        let pages = [(50, 0), (10, 2_995), (20, 5_990)]
        let reader = try catalog.remote(account: "editor")
        #expect(try await reader.searchIndexReport().snapshotStored)
        for text in queries + queries { try await expectExactPages(text, pages, reader, current) }

        let writer = try SQLiteCatalog.open(path: path, create: false).remote(account: "editor")
        for (step, index) in stride(from: 0, to: 9_000, by: 97).enumerated() {
            let book = current[index]
            let title = ["Delta \(index)", "Alpha Delta \(index)", "Aaa Beta \(index)"][step % 3]
            current[index] = try await writer.save(
                SaveRequest(
                    id: book.id, title: title, author: book.author,
                    expectedRevision: book.revision))
        }
        for text in queries { try await expectExactPages(text, pages, reader, current) }
        let next = try catalog.remote(account: "editor")
        for text in queries { try await expectExactPages(text, pages, next, current) }
    }

    /// Typing a broad word after others ("the s") is answered by judging the books the other
    /// words share instead of reading the broad word's postings, stopping once the page and
    /// "10,000+" are certain: the same pages and totals as `SearchTerms` gives, before and
    /// after changes hide some of the index's books.
    @Test func typedBroadWordsAfterOthersAreAnsweredExactly() async throws {
        let path = directory.path("broad.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        let words = [
            "sea", "secret", "stone", "silver", "sun", "star", "garden", "night", "river", "city", "gold", "war",
        ]
        let authors = ["Sara Stone", "Tom Reed", "Ann Smith", "Bob Hill"]
        var generator = GeneratedBooks(seed: 31)
        let books = (0..<12_500).map { number in
            var title = [
                number % 3 == 0 ? "The" : "", words[generator.next(words.count)], words[generator.next(words.count)],
            ]
            if number % 5 == 0 { title += ["of the", words[generator.next(words.count)]] }
            return NewBook(
                title: title.filter { !$0.isEmpty }.joined(separator: " "),
                author: authors[generator.next(authors.count)])
        }
        try catalog.insertBooks(books, scope: "main")
        let remote = try catalog.remote(account: "editor")
        #expect(try await remote.searchIndexReport().report.books == books.count)

        func expectExact(_ when: String) async throws {
            let committed = try committedBooks(path, scope: "main")
            for text in ["the s", "the st", "the s g", "of s", "river s", "the g", "s the", "sun s"] {
                let terms = SearchTerms(text)
                let expected = matches(of: terms, in: committed)
                for (limit, offset) in [(50, 0), (20, 40), (10, 9_995)] {
                    let page = try await remote.search(SearchQuery(text: text, limit: limit, offset: offset))
                    let wanted = Array(expected.dropFirst(offset).prefix(limit))
                    let counted = min(expected.count, SearchIndex.countLimit(offset: offset, limit: limit))
                    let total = TotalCount(
                        counted: counted, offset: offset, shown: wanted.count, hasMore: offset + wanted.count < counted)
                    #expect(
                        page.records == wanted && page.totalCount == total,
                        "\(when): \(text) \(limit) \(offset): \(page.totalCount), expected \(total) of \(expected.count)"
                    )
                }
            }
        }
        try await expectExact("as built")
        // Changes after the build: their old entries are hidden and they are judged apart.
        for id in stride(from: 1, through: 3_000, by: 97) {
            let book = try await remote.load(id: id)
            _ = try await remote.save(
                SaveRequest(id: id, title: "Sunlit the \(book.title)", expectedRevision: book.revision))
        }
        try await expectExact("after changes")
    }
}
