import BookCatalog
import Testing

@Suite struct SampleBooksTests {
    @Test func theSameSeedGivesTheSameBooks() {
        let first = Array(SampleBooks(count: 2_000, seed: 42))
        let second = Array(SampleBooks(count: 2_000, seed: 42))
        #expect(first == second)
        #expect(first.count == 2_000)
    }

    @Test func aBookDependsOnlyOnItsSeedAndIndex() {
        let short = SampleBooks(count: 10, seed: 7)
        let long = SampleBooks(count: 10_000, seed: 7)
        #expect(Array(short) == Array(long.prefix(10)))
        #expect(long.book(at: 9_999) == Array(long).last)
    }

    @Test func differentSeedsGiveDifferentBooks() {
        let one = Array(SampleBooks(count: 200, seed: 1))
        let two = Array(SampleBooks(count: 200, seed: 2))
        let sameAtSameIndex = zip(one, two).filter { $0 == $1 }.count
        #expect(sameAtSameIndex < 20)
    }

    /// Neighbouring books must not be shifted copies of each other's random draws.
    @Test func neighbouringBooksAreIndependent() {
        let books = Array(SampleBooks(count: 3_000, seed: 1))
        let sameAuthorAsNext = zip(books, books.dropFirst()).filter { $0.author == $1.author }.count
        #expect(sameAuthorAsNext < 30, "\(sameAuthorAsNext) neighbours share an author")
    }

    /// Pinned values: a change to the generator changes every sample catalog and benchmark
    /// baseline, so it must be deliberate.
    @Test func theGeneratorIsPinned() {
        let books = SampleBooks(count: 3, seed: 1)
        let described = books.map { "\($0.title) | \($0.author)" }
        #expect(described == Self.pinnedSeedOne)
    }

    static let pinnedSeedOne = [
        "コーヒーの文化 | 박민준",
        "The Golden Garden | Ngozi Þórsson",
        "Velvet Archives | François Yılmaz",
    ]

    @Test func booksAreVariedAndRealistic() {
        let books = Array(SampleBooks(count: 3_000, seed: 1))
        let titles = books.map(\.title)
        let authors = books.map(\.author)
        let all = titles + authors

        #expect(all.contains { $0.contains("é") || $0.contains("ü") || $0.contains("Å") || $0.contains("ø") })
        #expect(
            titles.contains { $0.unicodeScalars.contains { (0x3040...0x30FF).contains($0.value) } }, "Japanese kana")
        #expect(
            titles.contains { $0.unicodeScalars.contains { (0x4E00...0x9FFF).contains($0.value) } }, "Han characters")
        #expect(titles.contains { $0.unicodeScalars.contains { (0xAC00...0xD7AF).contains($0.value) } }, "Hangul")
        #expect(titles.contains { $0.unicodeScalars.contains { $0.properties.isEmojiPresentation } }, "emoji")
        #expect(titles.contains { $0.count >= 200 }, "very long titles")
        #expect(titles.contains { $0.hasPrefix("History of ") })
        #expect(titles.contains { $0.hasPrefix("A History of ") })
        #expect(Set(titles).count > 1_000, "mostly distinct titles")
    }

    @Test func everyBookPassesTheCatalogRules() throws {
        var longest = 0
        for book in SampleBooks(count: 100_000, seed: 5) {
            #expect(try book.validated() == book, "\(book)")
            longest = max(longest, book.title.count)
        }
        #expect(longest > 300 && longest <= BookValidation.maximumTitleLength)
    }

    @Test func theStarterCatalogHasAccountsInTwoScopesAndBooksForEach() throws {
        let starter = SampleBooks.starter
        let alice = try #require(starter.accounts.first { $0.name == "alice" })
        let bob = try #require(starter.accounts.first { $0.name == "bob" })
        let carol = try #require(starter.accounts.first { $0.name == "carol" })
        #expect(alice.role == .editor && alice.scope == "main")
        #expect(bob.role == .reader && bob.scope == "main")
        #expect(carol.role == .editor && carol.scope != "main")

        let scopes = Set(starter.shelves.map(\.scope))
        #expect(scopes == Set(starter.accounts.map(\.scope)))
        for shelf in starter.shelves {
            #expect(shelf.books.count == shelf.count)
            #expect(shelf.books.starts(with: shelf.landmarks))
            for book in shelf.books { #expect(try book.validated() == book) }
        }
        let main = try #require(starter.shelves.first { $0.scope == "main" })
        #expect(main.count >= 1_000, "a few thousand books so the first run shows something real")
        #expect(main.landmarks.contains { $0.title == "日本の歴史" })
    }

    /// A new user sees what a record can hold: among the landmarks are books with an ISBN, a
    /// year, a publisher, a series and a place in it (a fractional one too), tags and notes
    /// of more than one line, and books with none of these.
    @Test func someStarterBooksHaveRealDetails() throws {
        let landmarks = SampleBooks.starter.shelves.flatMap(\.landmarks)
        let details = landmarks.map(\.details)
        #expect(details.contains { $0.isbn != nil })
        #expect(details.contains { $0.year != nil })
        #expect(details.contains { !$0.publisher.isEmpty })
        #expect(details.contains { !$0.series.isEmpty && $0.seriesIndex != nil })
        #expect(details.contains { $0.seriesIndex.map { $0.thousandths % 1000 != 0 } ?? false })
        #expect(details.contains { $0.tags.count >= 2 })
        #expect(details.contains { $0.notes.contains("\n") })
        #expect(details.contains { $0.isEmpty })
        for book in landmarks { #expect(try book.details.validated() == book.details, "\(book.title)") }
        // Books of one series are numbered in it.
        let series = try #require(landmarks.first { !$0.details.series.isEmpty }?.details.series)
        let indices = landmarks.filter { $0.details.series == series }.compactMap(\.details.seriesIndex)
        #expect(indices.count >= 2 && Set(indices).count == indices.count)
    }
}
