import BookCatalog
import Foundation
import Testing

/// The contract every catalog adapter must meet. Each check makes its own fresh catalog.
extension ContractCheck {
    public static let all: [ContractCheck] =
        loading + saving + searching + freshness + history + details + searchingDetails

    // MARK: Loading

    static let loading: [ContractCheck] = [
        ContractCheck("load returns the stored book and the remote knows its account") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            #expect(editor.account == Library.editor)
            for book in library.booksInMain {
                #expect(try await editor.load(id: book.id) == book)
            }
        },
        ContractCheck("load of an unknown id or of another scope's book is missing") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            await expectFailure(.missing) { _ = try await editor.load(id: 987_654) }
            await expectFailure(.missing) { _ = try await editor.load(id: library.secret.id) }
            let outsider = try await library.remote(for: "outsider")
            #expect(try await outsider.load(id: library.secret.id) == library.secret)
        },
        ContractCheck("the count is of the books the account's scope holds, one a book whatever its revisions") {
            fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let reader = try await library.remote(for: "reader")
            let outsider = try await library.remote(for: "outsider")
            #expect(try await editor.bookCount() == library.booksInMain.count)
            #expect(try await reader.bookCount() == library.booksInMain.count)
            #expect(try await outsider.bookCount() == library.seeds.count - library.booksInMain.count)
            let book = library.book(0)
            _ = try await editor.save(SaveRequest(id: book.id, title: "Counted Again", expectedRevision: 1))
            #expect(try await reader.bookCount() == library.booksInMain.count, "a save adds no book")
        },
    ]

    // MARK: Saving

    static let saving: [ContractCheck] = [
        ContractCheck("save moves the revision by one and keeps the author when none is given") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let book = library.book(0)
            let saved = try await editor.save(
                SaveRequest(id: book.id, title: "  A New History of Rome ", expectedRevision: 1))
            #expect(saved == BookRecord(id: book.id, title: "A New History of Rome", revision: 2, author: book.author))
            #expect(try await editor.load(id: book.id) == saved)
            let legacy = try await editor.save(id: book.id, title: "Rome Again", expectedRevision: 2)
            #expect(legacy == BookRecord(id: book.id, title: "Rome Again", revision: 3, author: book.author))
        },
        ContractCheck("save with an author stores it") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let book = library.book(1)
            let saved = try await editor.save(
                SaveRequest(id: book.id, title: book.title, author: "Ana Lúcia", expectedRevision: 1))
            #expect(saved.author == "Ana Lúcia" && saved.revision == 2)
            #expect(try await editor.load(id: book.id).author == "Ana Lúcia")
        },
        ContractCheck("save of an unknown book or of another scope's book is missing and changes nothing") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            await expectFailure(.missing) {
                _ = try await editor.save(SaveRequest(id: 987_654, title: "X", expectedRevision: 1))
            }
            await expectFailure(.missing) {
                _ = try await editor.save(SaveRequest(id: library.secret.id, title: "Mine", expectedRevision: 1))
            }
            let outsider = try await library.remote(for: "outsider")
            #expect(try await outsider.load(id: library.secret.id) == library.secret)
        },
        ContractCheck("a save from a stale revision is a conflict naming both revisions") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let book = library.book(2)
            let first = try await editor.save(SaveRequest(id: book.id, title: "First", expectedRevision: 1))
            await expectFailure(.conflict(expected: 1, actual: 2)) {
                _ = try await editor.save(SaveRequest(id: book.id, title: "Second", expectedRevision: 1))
            }
            #expect(try await editor.load(id: book.id) == first)
        },
        ContractCheck("a reader may load but not save") { fixture in
            let library = try await Library.make(fixture)
            let reader = try await library.remote(for: "reader")
            let book = library.book(0)
            #expect(try await reader.load(id: book.id) == book)
            await expectFailure(.notAllowed) {
                _ = try await reader.save(SaveRequest(id: book.id, title: "Vandalised", expectedRevision: 1))
            }
            #expect(try await reader.load(id: book.id) == book)
        },
        ContractCheck("the store itself rejects invalid titles and authors") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let book = library.book(0)
            for title in [
                "", "   ", "bell\u{7}", "esc \u{1B}[31m", "bidi \u{202E}txet", String(repeating: "x", count: 501),
            ] {
                await expectFailure(.invalidTitle) {
                    _ = try await editor.save(SaveRequest(id: book.id, title: title, expectedRevision: 1))
                }
            }
            for author in ["tab\there", "del\u{7F}", String(repeating: "y", count: 201)] {
                await expectFailure(.invalidAuthor) {
                    _ = try await editor.save(
                        SaveRequest(id: book.id, title: "Fine", author: author, expectedRevision: 1))
                }
            }
            #expect(try await editor.load(id: book.id) == book)
        },
        ContractCheck("text round-trips exactly: accents, CJK, emoji, the longest title") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let book = library.book(4)
            let longest = String(repeating: "é🚀東", count: 166) + "ab"
            #expect(longest.count == BookValidation.maximumTitleLength)
            var revision = 1
            for (title, author) in [
                ("Ñandú ﬁne 東京物語 🚀📚 e\u{301}", "Zoë Ünal 山田"), (longest, String(repeating: "ü", count: 200)),
            ] {
                let saved = try await editor.save(
                    SaveRequest(id: book.id, title: title, author: author, expectedRevision: revision))
                revision += 1
                #expect(saved.title == title && saved.author == author)
                let loaded = try await editor.load(id: book.id)
                #expect(loaded.title.unicodeScalars.elementsEqual(title.unicodeScalars))
                #expect(loaded.author.unicodeScalars.elementsEqual(author.unicodeScalars))
            }
            // Emoji are tokens: the query finds the one book whose title has them.
            #expect(try await editor.search(SearchQuery(text: "🚀")).records.map(\.id) == [book.id])
            let found = try await editor.search(SearchQuery(text: "ee 東 abba"))
            #expect(found.records.map(\.id) == [])
            let hit = try await editor.search(SearchQuery(text: "e 東"))
            #expect(hit.records.map(\.id) == [book.id])
        },
        ContractCheck("committedRevision tells which operation committed, and at which revision") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let book = library.book(1)
            let request = SaveRequest(id: book.id, title: "Committed", expectedRevision: 1)
            let lost = SaveRequest(id: book.id, title: "Lost", expectedRevision: 1)
            _ = try await editor.save(request)
            await expectFailure(.conflict(expected: 1, actual: 2)) { _ = try await editor.save(lost) }
            #expect(try await editor.committedRevision(of: request.operation) == 2)
            #expect(try await editor.committedRevision(of: lost.operation) == nil)
            #expect(try await editor.committedRevision(of: UUID()) == nil)
            let other = try await library.remote(for: "editor2")
            #expect(try await other.committedRevision(of: request.operation) == 2)
        },
        ContractCheck("of two saves racing from the same base on two remotes, exactly one wins") { fixture in
            for round in 0..<10 {
                let library = try await Library.make(fixture)
                let first = try await library.remote(for: "editor")
                let second = try await library.remote(for: "editor2")
                let id = library.book(round % 5).id
                async let a = outcome {
                    try await first.save(SaveRequest(id: id, title: "From A", expectedRevision: 1))
                }
                async let b = outcome {
                    try await second.save(SaveRequest(id: id, title: "From B", expectedRevision: 1))
                }
                let results = await [a, b]
                let winners = results.compactMap { try? $0.get() }
                #expect(winners.count == 1)
                #expect(winners.first?.revision == 2)
                let losers = results.compactMap { result -> BookFailure? in
                    if case let .failure(error) = result { return error as? BookFailure }
                    return nil
                }
                #expect(losers == [.conflict(expected: 1, actual: 2)])
                #expect(try await first.load(id: id) == winners.first)
            }
        },
    ]

    // MARK: Searching

    static let searching: [ContractCheck] = [
        ContractCheck("search ignores case and diacritics") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            for text in ["cafe", "CAFÉ", "Cafe\u{301}", "  café  "] {
                #expect(try await library.ids(editor, text) == [library.book(8).id, library.book(1).id], "\(text)")
            }
            #expect(try await library.ids(editor, "zoe unal") == [library.book(8).id])
        },
        ContractCheck("letters that do not decompose fold as transliterated: soren finds Søren, søren finds Soren") {
            fixture in
            let books =
                Library.books + [
                    SeedBook("Northern Lights over Tromsø", by: "Søren Þórsson"),
                    SeedBook("Łódź in Winter", by: "Łukasz Nowak"),
                    SeedBook("Æon", by: "Anon"),
                    SeedBook("Œuvre complète", by: "Victor Hugo"),
                    SeedBook("Þorn and Bramble", by: "Ása"),
                    SeedBook("Die Straße", by: "Anon"),
                    SeedBook("Soren Smith's Essays", by: "Oeuvre Press"),
                ]
            let library = try await Library.make(fixture, books: books)
            let editor = try await library.remote(for: "editor")
            let (tromso, lodz, aeon, oeuvre, thorn, strasse, soren) = (
                library.book(9).id, library.book(10).id, library.book(11).id,
                library.book(12).id, library.book(13).id, library.book(14).id,
                library.book(15).id
            )
            // Title starts first, then titles, then authors.
            for text in ["soren", "søren", "SØREN", "Soren"] {
                #expect(try await library.ids(editor, text) == [soren, tromso], "\(text)")
            }
            #expect(try await library.ids(editor, "lukasz") == [lodz])
            #expect(try await library.ids(editor, "łukasz nowak") == [lodz])
            for text in ["lodz", "łódź", "LODZ win"] {
                #expect(try await library.ids(editor, text) == [lodz], "\(text)")
            }
            #expect(try await library.ids(editor, "aeon") == [aeon])
            #expect(try await library.ids(editor, "æon") == [aeon])
            #expect(try await library.ids(editor, "oeuvre") == [oeuvre, soren])
            #expect(try await library.ids(editor, "œuvre compl") == [oeuvre])
            #expect(try await library.ids(editor, "thorn") == [thorn])
            #expect(try await library.ids(editor, "thor") == [thorn, tromso])
            #expect(try await library.ids(editor, "þórs") == [tromso])
            #expect(try await library.ids(editor, "strasse") == [strasse])
            #expect(try await library.ids(editor, "straße") == [strasse])
            #expect(try await library.ids(editor, "tromso") == [tromso])
        },
        ContractCheck("every word is a prefix of consecutive tokens: \"hist rom\" finds A History of Rome") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            #expect(try await library.ids(editor, "hist rom") == [library.book(0).id, library.book(5).id])
            #expect(try await library.ids(editor, "history of ro") == [library.book(0).id])
            #expect(try await library.ids(editor, "of history") == [library.book(0).id])
            #expect(try await library.ids(editor, "istory") == [])
        },
        ContractCheck("ranking: title start, then title, then author; ties by folded title") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let page = try await editor.search(SearchQuery(text: "hist"))
            #expect(page.records.map(\.id) == [4, 0, 5, 6].map { library.book($0).id })
            #expect(page.total == 4)
            #expect(try await library.ids(editor, "gibbon") == [library.book(2).id])
        },
        ContractCheck("Japanese: each character is a word piece") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let japanese = library.book(3).id
            for text in ["歴史", "日本", "本の歴", "山田", "日本 歴史"] {
                #expect(try await library.ids(editor, text) == [japanese], "\(text)")
            }
            #expect(try await library.ids(editor, "史歴") == [])
        },
        ContractCheck("symbols and emoji are searchable; a query with no searchable words answers nothing") { fixture in
            let books =
                Library.books + [
                    SeedBook("Spring 🌸 Haiku", by: "Bashō"),
                    SeedBook("Bright 🌸🌸 Mornings", by: "Ana"),
                    SeedBook("Bright Days", by: "Ana"),
                    SeedBook("The C++ Primer", by: "Lippman"),
                    SeedBook("I ❤\u{FE0F} Rome", by: "Anon"),
                    SeedBook("... and Then There Were None?!", by: "Agatha Christie"),
                ]
            let library = try await Library.make(fixture, books: books)
            let editor = try await library.remote(for: "editor")
            let (haiku, mornings, days, primer, heart) = (
                library.book(9).id, library.book(10).id, library.book(11).id,
                library.book(12).id, library.book(13).id
            )
            #expect(try await library.ids(editor, "🌸") == [mornings, haiku])
            #expect(try await editor.search(SearchQuery(text: "🌸")).total == 2)
            #expect(try await library.ids(editor, "🌸 bright") == [mornings])
            #expect(try await library.ids(editor, "bright") == [days, mornings])
            #expect(try await library.ids(editor, "c++") == [primer])
            #expect(try await library.ids(editor, "❤") == [heart])
            #expect(try await library.ids(editor, "❤️ rome") == [heart])
            for text in ["...", "?!", "— ;", "\"%_\""] {
                let page = try await editor.search(SearchQuery(text: text))
                #expect(page.records.isEmpty && page.total == 0, "\(text)")
            }
        },
        ContractCheck("another scope's books are invisible to search") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            #expect(try await library.ids(editor, "secret") == [])
            let outsider = try await library.remote(for: "outsider")
            let page = try await outsider.search(SearchQuery(text: ""))
            #expect(page.records == [library.secret] && page.total == 1)
        },
        ContractCheck("the empty query lists every book in folded-title order, with paging and totals") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let order = [0, 8, 1, 6, 4, 5, 2, 3].map { library.book($0).id }
            let all = try await editor.search(SearchQuery(text: "   "))
            #expect(all.records.map(\.id) == order && all.total == 8)
            let middle = try await editor.search(SearchQuery(text: "", limit: 3, offset: 2))
            #expect(middle.records.map(\.id) == Array(order[2..<5]) && middle.total == 8)
            let tail = try await editor.search(SearchQuery(text: "", limit: 5, offset: 7))
            #expect(tail.records.map(\.id) == [order[7]] && tail.total == 8)
            let beyond = try await editor.search(SearchQuery(text: "", limit: 5, offset: 20))
            #expect(beyond.records.isEmpty && beyond.total == 8)
            let none = try await editor.search(SearchQuery(text: "hist", limit: 0))
            #expect(none.records.isEmpty && none.total == 4)
            let paged = try await editor.search(SearchQuery(text: "hist", limit: 2, offset: 1))
            #expect(paged.records.map(\.id) == [0, 5].map { library.book($0).id } && paged.total == 4)
        },
        ContractCheck("query syntax characters are plain text and never fail") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let hostile = [
                "\"", "\"hist", "hist\"", "hist*", "*", "AND", "hist AND rome", "rome OR cafe", "NOT rome",
                "NEAR(hist rome)", "NEAR(", "-rome", "(rome)", ")", "title:rome", "^rome", "{title}: x",
                "'; DROP TABLE books; --", "%", "_", "\\", "\u{0}", "rome\u{0}x", "a\"b", "\"\"", "'", "+hist",
                "hist -", "…", "🚀", "e\u{301}", String(repeating: "(", count: 300),
            ]
            for text in hostile {
                let page = try await editor.search(SearchQuery(text: text))
                let expected = library.expected(text, in: library.booksInMain)
                #expect(page.records.map(\.id) == expected.ids && page.total == expected.total, "\(text)")
            }
            let parenthesised = try await library.ids(editor, "(rome)")
            #expect(parenthesised == [5, 0].map { library.book($0).id }, "\(parenthesised)")
            #expect(try await library.ids(editor, "\"hist rom\"") == [0, 5].map { library.book($0).id })
        },
        ContractCheck("search agrees with SearchTerms on generated books, before and after edits") { fixture in
            var generator = GeneratedBooks(seed: 7)
            let seeds = (0..<250).map { _ in generator.book() }
            let library = try await Library.make(fixture, books: seeds)
            let editor = try await library.remote(for: "editor")
            var current = library.booksInMain
            try await compareSearches(editor, current, library, &generator)
            // Edits by this remote and by another one, then compare again.
            let other = try await library.remote(for: "editor2")
            for step in 0..<40 {
                let index = generator.next(current.count)
                let old = current[index]
                let seed = generator.book()
                let remote = step.isMultiple(of: 2) ? editor : other
                current[index] = try await remote.save(
                    SaveRequest(
                        id: old.id, title: seed.title, author: seed.author,
                        expectedRevision: old.revision))
                if step % 10 == 9 { try await compareSearches(editor, current, library, &generator) }
            }
        },
    ]

    // MARK: Freshness

    static let freshness: [ContractCheck] = [
        ContractCheck("checkForChanges sees another remote's commit, not its own, and only once") { fixture in
            let library = try await Library.make(fixture)
            let mine = try await library.remote(for: "editor")
            let theirs = try await library.remote(for: "editor2")
            #expect(try await mine.checkForChanges() == nil)
            _ = try await theirs.save(SaveRequest(id: library.book(0).id, title: "Theirs", expectedRevision: 1))
            // A notice may name the books (PostgreSQL does) or not (SQLite cannot): either
            // way it must concern the book that changed.
            #expect(try await mine.checkForChanges()?.concerns(library.book(0).id) == true)
            #expect(try await mine.checkForChanges() == nil)
            _ = try await mine.save(SaveRequest(id: library.book(1).id, title: "Mine", expectedRevision: 1))
            #expect(try await mine.checkForChanges() == nil)
            #expect(try await theirs.checkForChanges()?.concerns(library.book(1).id) == true)
            #expect(try await theirs.checkForChanges() == nil)
        },
        ContractCheck("search reflects saves committed by this and by another remote") { fixture in
            let library = try await Library.make(fixture)
            let mine = try await library.remote(for: "editor")
            let theirs = try await library.remote(for: "editor2")
            #expect(try await library.ids(mine, "zebra") == [])  // searched once before the edits
            let book = library.book(2)
            let saved = try await theirs.save(SaveRequest(id: book.id, title: "Zebra Tales", expectedRevision: 1))
            let found = try await mine.search(SearchQuery(text: "zebra"))
            #expect(found.records == [saved] && found.total == 1)
            #expect(try await library.ids(mine, "roman") == [])
            _ = try await mine.save(SaveRequest(id: book.id, title: "Aardvark Roman", expectedRevision: 2))
            #expect(try await library.ids(mine, "zebra") == [])
            let all = try await mine.search(SearchQuery(text: ""))
            #expect(all.records.map(\.id) == [0, 2, 8, 1, 6, 4, 5, 3].map { library.book($0).id } && all.total == 8)
            #expect(try await library.ids(mine, "roman") == [book.id])
        },
    ]
}

// MARK: - Helpers

/// The standard catalog of the contract: three accounts in "main", one in "other".
struct Library {
    static let editor = Account(name: "editor", role: .editor, scope: "main")
    static let accounts = [
        editor,
        Account(name: "editor2", role: .editor, scope: "main"),
        Account(name: "reader", role: .reader, scope: "main"),
        Account(name: "outsider", role: .editor, scope: "other"),
    ]
    static let books = [
        SeedBook("A History of Rome", by: "Mary Beard"),
        SeedBook("Café Society", by: "Jean Dupont"),
        SeedBook("The Roman Empire", by: "Edward Gibbon"),
        SeedBook("日本の歴史", by: "山田太郎"),
        SeedBook("History", by: "Anon"),
        SeedBook("Rome: A History", by: "Livy"),
        SeedBook("Essays", by: "Historia Smith"),
        SeedBook("Secret History of Rome", by: "Hidden Hand", scope: "other"),
        SeedBook("CAFÉ CULTURE", by: "Zoë Ünal"),
    ]

    let catalog: any ContractCatalog
    let seeds: [SeedBook]

    static func make(_ fixture: any ContractFixture, books: [SeedBook] = Library.books) async throws -> Library {
        Library(catalog: try await fixture.makeCatalog(books: books, accounts: accounts), seeds: books)
    }

    func remote(for account: String) async throws -> any ContractRemote { try await catalog.remote(for: account) }
    func book(_ index: Int) -> BookRecord { catalog.books[index] }
    var secret: BookRecord { book(7) }
    var booksInMain: [BookRecord] { zip(seeds, catalog.books).filter { $0.0.scope == "main" }.map(\.1) }

    func ids(_ remote: any ContractRemote, _ text: String) async throws -> [Int] {
        try await remote.search(SearchQuery(text: text)).records.map(\.id)
    }

    /// What `SearchTerms` says a search of `records` must answer.
    func expected(_ text: String, in records: [BookRecord], limit: Int = 50, offset: Int = 0) -> (
        ids: [Int], total: Int
    ) {
        let terms = SearchTerms(text)
        let matches = records.filter { terms.matchesEverything || terms.matches($0) }.sorted {
            terms.sortKey($0) < terms.sortKey($1)
        }
        return (matches.dropFirst(offset).prefix(limit).map(\.id), matches.count)
    }
}

private func compareSearches(
    _ remote: any ContractRemote, _ records: [BookRecord], _ library: Library,
    _ generator: inout GeneratedBooks
) async throws {
    var queries = [
        "", "a", "al", "alp", "h", "hi", "his", "rom", "東", "東京", "cafe", "zo", "2", "al ro", "ro al", "b g",
        "history of", "e",
    ]
    for _ in 0..<12 { queries.append(generator.query()) }
    for text in queries {
        let expected = library.expected(text, in: records, limit: Int.max)
        for (limit, offset) in [(50, 0), (3, 0), (4, 5), (10, 100)] {
            let page = try await remote.search(SearchQuery(text: text, limit: limit, offset: offset))
            let expectedIDs = Array(expected.ids.dropFirst(offset).prefix(limit))
            #expect(page.records.map(\.id) == expectedIDs && page.total == expected.total, "\(text) \(limit) \(offset)")
            for record in page.records {
                #expect(records.first { $0.id == record.id } == record)
            }
        }
        // Below the counting limit every store's total is exact, and paging on with each page's
        // cursor (a store with keyset paging uses it; others go by offset) visits every match
        // once, in order.
        let first = try await remote.search(SearchQuery(text: text))
        #expect(expected.total > SearchPage.exactCountLimit || first.totalCount == .exact(expected.total), "\(text)")
        var paged: [Int] = []
        var cursor: SearchCursor?
        while paged.count < expected.total {
            let page = try await remote.search(SearchQuery(text: text, limit: 4, offset: paged.count, after: cursor))
            guard !page.records.isEmpty else { break }
            paged += page.records.map(\.id)
            cursor = page.next
        }
        #expect(paged == expected.ids, "paging \(text) by cursor")
    }
}

func outcome<T: Sendable>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}
