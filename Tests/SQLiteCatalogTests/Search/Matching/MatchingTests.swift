import BookCatalog
import Foundation
@testable import SQLiteCatalog
@testable import SearchEngine
import TestTags
import Testing

/// The matching rule as the store applies it to stored terms: when a query narrows another, and the
/// masks that rule rows out (`QueryWord`, `TokenStarts`, `FollowingBytes`, `LetterPlaces`), which
/// must never skip a match `SearchTerms` finds.
@Suite struct MatchingTests {
    /// Which typed queries are answered from which earlier scan: a longer prefix, a word added
    /// after, a token completed by punctuation; never a shorter prefix, a word put in front,
    /// or a character that only shares the earlier prefix's bytes.
    @Test(arguments: [
        ("his", "h", true), ("hist", "his", true), ("his", "hist", false), ("war a", "war", true),
        ("a war", "war", false), ("o'b", "o", true), ("ob", "o'", true), ("o'b", "ob", false),
        ("hist", "hist", true), ("कि", "क", false), ("कि घ", "कि", true), ("cafe", "café", true),
    ])
    func aQueryNarrowsAnEarlierOneOnlyWhenEveryMatchIsAmongItsMatches(typed: String, earlier: String, narrows: Bool) {
        func words(_ text: String) -> [QueryWord] { SearchTerms(text).words.map(QueryWord.init) }
        #expect(QueryWord.narrows(words(typed), words(earlier)) == narrows)
    }

    /// A first character beyond ASCII is told apart by the filter (`TokenStarts`) from those
    /// sharing its first bytes and from the letter its first byte once stood for: of the 63
    /// characters beside "日" (U+65C0...U+65FF, all beginning 0xE6 0x97) and books with words
    /// beginning with "f", few are admitted for "日", and every book with "日" is.
    @Test func aCharacterBeyondASCIIIsToldApartFromItsNeighbours() throws {
        func starts(_ title: String) -> TokenStarts {
            withStoredTerms(BookText(title: title, author: "")) { TokenStarts(title: $0, author: $1, other: $2) }
        }
        let required = TokenStarts(requiredBy: QueryWord(["日"]))
        let neighbours = (0x65C0...0x65FF).compactMap(Unicode.Scalar.init).map(String.init).filter { $0 != "日" }
        #expect(neighbours.count == 63)
        let admitted = neighbours.filter { starts("\($0) 本").admits(required) }
        #expect(admitted.count <= 3, "\(admitted)")
        #expect(!starts("fish farm").admits(required))
        for title in ["日", "日本", "森 日本", "an 日記"] { #expect(starts(title).admits(required), "\(title)") }
    }

    /// The number that settles most comparisons when changed books are sorted (`ByteOrder.prefix`)
    /// never contradicts the keys' byte order: for every pair of keys with different numbers,
    /// the numbers are in the keys' order. The keys are short and long, share long beginnings,
    /// and hold zero bytes and bytes past 0x7F, where padding and signs could go wrong.
    @Test func aKeysPrefixNumberIsInTheKeysOrder() {
        var state: UInt64 = 41
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let alphabet: [UInt8] = [0x00, 0x01, 0x20, 0x61, 0x62, 0x7F, 0x80, 0xE6, 0xFF]
        let keys = (0..<300).map { _ -> [UInt8] in
            let shared: [UInt8] = next() % 2 == 0 ? Array("history ".utf8) : []
            return shared + (0..<Int(next() % 11)).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }
        }
        var settled = 0
        for a in keys {
            for b in keys {
                a.withUnsafeBufferPointer { x in
                    b.withUnsafeBufferPointer { y in
                        let (first, second) = (ByteOrder.prefix(x), ByteOrder.prefix(y))
                        guard first != second else { return }
                        settled += 1
                        #expect((first < second) == (ByteOrder.compare(x, y) < 0), "\(a) and \(b)")
                    }
                }
            }
        }
        #expect(settled > keys.count * keys.count / 4)
    }

    /// A word found only in the series, the publisher or a tag ranks 3, after the author's rank
    /// 2; a word of several tokens never spans two fields; notes are never read. Judged on the
    /// bytes (words of one token) and on the token list (`RowTokens`, words of several).
    @Test func aWordInAnotherFieldOnlyRanksThird() {
        let mort = BookText(
            title: "Mort", author: "Terry Pratchett",
            details: BookDetails(publisher: "Hi Fi Press", series: "Discworld", tags: ["Death", "Ankh"]))
        let split = BookText(title: "Split", author: "", details: BookDetails(publisher: "Fi", series: "Hi"))
        func rank(_ query: String, _ stored: BookText) -> Int? {
            var judge = RowJudge(words: SearchTerms(query).words.map(QueryWord.init), wanted: 0, recordingUpTo: nil)
            return withStoredTerms(stored) { judge.rank(title: $0, author: $1, other: $2) }
        }
        let expected: [(String, BookText, Int?)] = [
            ("mort", mort, 0), ("terry", mort, 2), ("mort terry", mort, 2), ("discw", mort, 3), ("mort disc", mort, 3),
            ("terry ankh", mort, 3), ("death ankh", mort, 3), ("hi-fi", mort, 3), ("fi-press", mort, 3),
            ("press-disc", mort, nil), ("hi fi", split, 3), ("hi-fi", split, nil), ("split hi", split, 3),
            ("zeppelin", mort, nil),
        ]
        for (query, stored, wanted) in expected { #expect(rank(query, stored) == wanted, "\(query)") }

        var tokens = RowTokens()
        // The tokens are views into the row: read while it is there.
        withStoredTerms(mort) { title, author, other in
            tokens.read(title: title, author: author, other: other)
            let texts = tokens.all.map { String(decoding: $0, as: UTF8.self) }
            #expect(tokens.titleCount == 1 && tokens.authorCount == 2)
            #expect(
                texts == [
                    "mort", "terry", "pratchett", "discworld", "\u{1F}", "hi", "fi", "press", "\u{1F}", "death",
                    "\u{1F}",
                    "ankh",
                ])
            #expect(tokens.rank(SearchTerms("hi-fi").words.map(QueryWord.init)) == 3)
            #expect(tokens.rank(SearchTerms("press-death").words.map(QueryWord.init)) == nil)
        }
    }

    /// A one-letter query is answered from 16 bytes a book (`LetterPlaces`): the other fields'
    /// letters share the title's and the author's words, 0-21 and 22-35. For books whose other
    /// fields begin tokens with letters on both sides of that cut, every letter and digit ranks
    /// as `SearchTerms` ranks it.
    @Test func letterPlacesRankTheOtherFieldsThird() {
        let books: [(String, String, BookDetails)] = [
            ("Mort", "Pratchett", BookDetails(tags: ["Zebra", "9 lives", "ant", "v", "w"])),
            ("Abc", "", BookDetails(publisher: "Xyz", series: "0 1 2")),
            ("Quiet", "Una", BookDetails(series: "uv", tags: ["Wq"])),
            ("Zz", "Yy", .empty),
        ]
        for (title, author, details) in books {
            let stored = BookText(title: title, author: author, details: details)
            let places = withStoredTerms(stored) { LetterPlaces(title: $0, author: $1, other: $2) }
            let record = BookRecord(id: 1, title: title, revision: 1, author: author, details: details)
            for letter in "abcdefghijklmnopqrstuvwxyz0123456789" {
                let terms = SearchTerms(String(letter))
                let wanted = terms.matches(record) ? terms.rank(record) : nil
                let number = LetterPlaces.number(of: letter.asciiValue!)!
                #expect(places.rank(ofLetter: number) == wanted, "\(letter) in \(title)")
            }
        }
    }

}

/// Calls `body` with a book's stored title, author and other terms, as a row gives them.
func withStoredTerms<T>(
    _ stored: BookText,
    _ body: (
        _ title: UnsafeBufferPointer<UInt8>, _ author: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>
    ) -> T
) -> T {
    Array(stored.titleTerms.utf8).withUnsafeBufferPointer { title in
        Array(stored.authorTerms.utf8).withUnsafeBufferPointer { author in
            Array(stored.otherTerms.utf8).withUnsafeBufferPointer { other in body(title, author, other) }
        }
    }
}

extension BookText {
    /// Every token of the stored terms, the other fields' separators included.
    var allTokens: [Substring] {
        titleTerms.split(separator: " ") + authorTerms.split(separator: " ") + otherTerms.split(separator: " ")
    }
}

extension BookDetails {
    /// The same details with no ISBN: what a book's text alone is matched on.
    var withoutISBN: BookDetails {
        BookDetails(
            year: year, publisher: publisher, series: series, seriesIndex: seriesIndex, tags: tags, notes: notes)
    }
}

/// The slow part of the suite above (each of these takes seconds: large generated catalogs, many
/// damaged copies); the rest stays in the inner loop (`Scripts/test fast`).
@Suite(.tags(.slow)) struct MatchingScaleTests {
    /// A kept scan's rows are passed over on the bytes that follow its last word in their tokens
    /// (`FollowingBytes`): for every query typed after an earlier one that it narrows, no book
    /// both match is passed over, and most books the earlier query matches but the typed one
    /// cannot (its next byte follows the earlier word in none of their tokens) are.
    @Test func aKeptScansMasksNeverSkipAMatchOfANarrowerQuery() {
        var generator = GeneratedBooks(seed: 41)
        let books =
            (0..<400).map { _ in (seed: generator.book(), details: generator.details()) }
            + [
                (SeedBook("Zz Top", by: "Zora Zzyzx"), BookDetails.empty),
                (SeedBook("École ét", by: "O'Brien"), BookDetails(series: "Zq ob")),
                (SeedBook("東京 物語", by: "2nd z9"), BookDetails(tags: ["zx", "京都"])),
            ]
        var typed = sampleQueries + (0..<120).map { _ in generator.query() }
        typed += ["東京", "東 京", "o'b", "ob", "ét", "éc", "2n", "z9", "zy", "zz", "zo", "hi r", "hist ro"]
        func words(_ text: String) -> [QueryWord] { SearchTerms(text).words.map(QueryWord.init) }
        var (followedOnly, followedSkipped) = (0, 0)
        for text in typed {
            let terms = SearchTerms(text)
            // Every shorter query it narrows: its own prefixes, a character at a time.
            let earlierTexts = (1..<max(1, text.count)).map { String(text.prefix($0)) }.filter {
                QueryWord.narrows(words(text), words($0))
            }
            for earlier in earlierTexts {
                let following = FollowingBytes(narrowing: words(earlier))
                let required = following.required(by: words(text))
                let earlierTerms = SearchTerms(earlier)
                for (book, details) in books {
                    let record = BookRecord(
                        id: 1, title: book.title, revision: 1, author: book.author, details: details.withoutISBN)
                    guard earlierTerms.matches(record) else { continue }
                    let stored = BookText(title: book.title, author: book.author, details: details)
                    let mask = withStoredTerms(stored) { following.mask(title: $0, author: $1, other: $2) }
                    let passed = mask & required != required
                    #expect(
                        !passed || !terms.matches(record),
                        "\(text) after \(earlier) passed over \(book.title) by \(book.author)")
                    // A one-word query a byte longer than the earlier one: its last byte follows
                    // the earlier word in no token of the book, so the book is passed over.
                    let tokens = stored.allTokens
                    let (before, after) = (words(earlier), words(text))
                    if before.count == 1, after.count == 1, before[0].exact.isEmpty, after[0].exact.isEmpty,
                        before[0].prefixBytes.count <= 2, after[0].prefixBytes.count == before[0].prefixBytes.count + 1,
                        !tokens.contains(where: { $0.utf8.starts(with: after[0].prefixBytes) })
                    {
                        followedOnly += 1
                        if passed { followedSkipped += 1 }
                    }
                }
            }
        }
        // Only a byte sharing the six low bits of the typed one (a digit for a letter) lets a book through.
        #expect(followedOnly > 500 && followedSkipped * 10 > followedOnly * 9, "\(followedSkipped) of \(followedOnly)")
    }

    /// The filter that skips changed books without reading their terms (`TokenStarts`) never
    /// skips a match: for generated books and queries, every book `SearchTerms` matches is
    /// admitted by every word's masks. Some non-matches are admitted too (it is a filter), but
    /// few of those that lack a word's first two or three bytes.
    @Test func theChangedBooksFilterNeverSkipsAMatch() throws {
        var generator = GeneratedBooks(seed: 23)
        let books = (0..<400).map { _ in (seed: generator.book(), details: generator.details()) }
        var queries = sampleQueries + (0..<200).map { _ in generator.query() }
        queries += [
            "東京", "東 京", "l'e", "e\u{301}", "ét", "2n", "ß", "ss", "œ", "oe", "ø", "søren", "ł", "łó", "æ", "ae", "þ",
            "th",
        ]
        var skipped = 0
        var (pairOnly, pairSkipped) = (0, 0)
        var (tripleOnly, tripleSkipped) = (0, 0)
        for text in queries {
            let terms = SearchTerms(text)
            let required = terms.words.map { TokenStarts(requiredBy: QueryWord($0)) }
            for (book, details) in books {
                let stored = BookText(title: book.title, author: book.author, details: details)
                let starts = withStoredTerms(stored) { TokenStarts(title: $0, author: $1, other: $2) }
                let admitted = required.allSatisfy(starts.admits)
                // The filter is for the text: the books of an ISBN query are read by their ISBN.
                let record = BookRecord(
                    id: 1, title: book.title, revision: 1, author: book.author, details: details.withoutISBN)
                #expect(admitted || !terms.matches(record), "\(text) skipped \(book.title) by \(book.author)")
                if !admitted { skipped += 1 }
                // The first two bytes count, not only the first: a book with tokens beginning with
                // a one-word query's first byte but none with its first two is mostly skipped.
                let tokens = stored.allTokens
                if let first = terms.words.first?.first.map({ Array($0.utf8) }), terms.words.count == 1,
                    first.count >= 2,
                    tokens.contains(where: { $0.utf8.first == first[0] }),
                    !tokens.contains(where: { $0.utf8.starts(with: first[0...1]) })
                {
                    pairOnly += 1
                    if !admitted { pairSkipped += 1 }
                }
                // And the first three: "mur" skips most of the books "mu" matches but "mur" does not.
                if let first = terms.words.first?.first.map({ Array($0.utf8) }), terms.words.count == 1,
                    first.count >= 3,
                    tokens.contains(where: { $0.utf8.starts(with: first[0...1]) }),
                    !tokens.contains(where: { $0.utf8.starts(with: first[0...2]) })
                {
                    tripleOnly += 1
                    if !admitted { tripleSkipped += 1 }
                }
            }
        }
        #expect(skipped > 0)
        // Hashed into 64 bits, a pair is mistaken for another in about 1 token in 64.
        #expect(pairOnly > 100 && pairSkipped * 4 > pairOnly * 3, "\(pairSkipped) of \(pairOnly)")
        #expect(tripleOnly > 50 && tripleSkipped * 4 > tripleOnly * 3, "\(tripleSkipped) of \(tripleOnly)")
    }
}
