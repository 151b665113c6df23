import BookCatalog
import Foundation
import CatalogSimulation
import Testing

@Suite("Search terms")
struct SearchTermsTests {
    func record(_ title: String, author: String = "") -> BookRecord {
        BookRecord(id: 1, title: title, revision: 1, author: author)
    }

    @Test("case and diacritics are ignored", arguments: ["cafe", "CAFÉ", "Cafe", "café"])
    func foldsCaseAndDiacritics(query: String) {
        #expect(SearchTerms(query).matches(record("Le Café du Coin")))
    }

    /// Letters that do not decompose into a letter and accents fold as a transliteration
    /// table (ICU's Latin-ASCII) would, and a query is folded the same way, so typing either
    /// form finds both.
    @Test(
        "letters that do not decompose fold as transliterated",
        arguments: [
            ("soren", "Søren Kierkegaard"), ("lukasz", "Łukasz Nowak"), ("lodz", "Łódź Stories"), ("aeon", "Æon Flux"),
            ("oeuvre", "Œuvre complète"), ("thorn", "Þorn and Bramble"), ("strasse", "Straße der Sehnsucht"),
            ("dorde", "Đorđe Balašević"), ("isik", "Işık"), ("istanbul", "İstanbul"), ("hrvatska", "Ħrvatska"),
            ("dis", "Ðís"), ("ijssel", "Ĳssel"), ("llull", "Ŀlull"), ("dzemal", "Ǆemal"), ("tromso", "Tromsø"),
            ("søren", "Soren Smith"), ("ŁODZ", "Lodz Stories"), ("æon", "Aeon"), ("Œuvre", "Oeuvre"), ("þorn", "Thorn"),
            ("straße", "Strasse"), ("ærøskøbing", "Aeroskobing"), ("n", "ŉ"), ("ss", "ſs"),
        ])
    func transliteratedLetters(query: String, title: String) {
        #expect(SearchTerms(query).matches(record(title)), "\(query) finds \(title)")
        #expect(SearchTerms(query).matches(record("Anything", author: title)), "\(query) finds the author \(title)")
    }

    @Test("transliterated letters fold to lowercase ASCII, in titles' order keys too")
    func transliterationIsASCII() {
        #expect(SearchTerms.fold("Søren Þórsson, Łódź & Æblegrød: Œuvre") == "soren thorsson, lodz & aeblegrod: oeuvre")
        #expect(SearchTerms.tokens(of: "Đorđe Ħal-Ŧaħt") == ["dorde", "hal", "taht"])
        // Folded titles order as their transliteration: "Æon" between "Adam" and "Afar".
        let titles = ["Afar", "Æon", "Adam", "Øresund", "Oslo", "Ōmura"]
        #expect(
            titles.sorted { SearchTerms.fold($0) < SearchTerms.fold($1) } == [
                "Adam", "Æon", "Afar", "Ōmura", "Øresund", "Oslo",
            ])
        #expect(!SearchTerms("lodz").matches(record("Łuck")))
    }

    @Test("the matched part of a transliterated word is highlighted whole")
    func transliteratedHighlights() {
        let title = "Æon of Łódź"
        #expect(SearchTerms("ae lod").highlightRanges(in: title).map { String(title[$0]) } == ["Æ", "Łód"])
        #expect(SearchTerms("aeo").highlightRanges(in: title).map { String(title[$0]) } == ["Æo"])
        let street = "Straße"
        #expect(SearchTerms("stras").highlightRanges(in: street).map { String(street[$0]) } == ["Straß"])
    }

    @Test("every word matches as a prefix of a word in the title or author")
    func wordsArePrefixes() {
        #expect(SearchTerms("hist rom").matches(record("A History of Rome")))
        #expect(SearchTerms("rom hist").matches(record("A History of Rome")))
        #expect(!SearchTerms("istory").matches(record("A History of Rome")))
        #expect(SearchTerms("hist gibb").matches(record("The History", author: "Edward Gibbon")))
        #expect(!SearchTerms("hist zzz").matches(record("A History of Rome")))
    }

    @Test("Han, kana and Hangul match inside a run of characters")
    func ideographicScripts() {
        #expect(SearchTerms("歴史").matches(record("日本の歴史")))
        #expect(SearchTerms("日本").matches(record("日本の歴史")))
        #expect(!SearchTerms("史歴").matches(record("日本の歴史")))
        #expect(SearchTerms("한국").matches(record("한국의 역사")))
    }

    @Test(
        "query syntax characters are text", arguments: ["\"", "*", "AND", "NEAR(", "-", "(", ")", "\"\"", "a*b", "-x"])
    func hostileQueriesAreText(query: String) {
        let terms = SearchTerms(query)
        _ = terms.matches(record("Anything AND everything (near)"))
        #expect(terms.words.allSatisfy { $0.allSatisfy { !$0.contains("\"") && !$0.contains("*") } })
    }

    @Test("symbols and emoji in titles are tokens of their own")
    func symbolsAreTokens() {
        let blossom = record("Spring 🌸 Haiku")
        #expect(SearchTerms("🌸").matches(blossom))
        #expect(SearchTerms("🌸 hai").matches(blossom))
        #expect(!SearchTerms("🌸").matches(record("Spring Haiku")))
        #expect(!SearchTerms("🌸 bright").matches(record("Bright Days")))
        #expect(SearchTerms("c++").matches(record("The C++ Language")))
        #expect(SearchTerms("€").matches(record("Prices in €uros")))
        // A variation selector does not make another symbol.
        #expect(SearchTerms("❤").matches(record("I \u{2764}\u{FE0F} Paris")))
        #expect(SearchTerms.tokens(of: "Tea🍵Time") == ["tea", "🍵", "time"])
        let title = "Spring 🌸 Haiku"
        #expect(SearchTerms("🌸").highlightRanges(in: title).map { String(title[$0]) } == ["🌸"])
    }

    @Test(
        "a query of only punctuation has no searchable words and matches nothing",
        arguments: ["...", "?!", "—", "\"'\"", "- -"])
    func punctuationOnly(query: String) {
        let terms = SearchTerms(query)
        #expect(terms.hasNoSearchableWords)
        #expect(!terms.matchesEverything)
        #expect(!terms.matches(record("... and Then There Were None?!")))
    }

    @Test("the blank query matches everything and is not 'no searchable words'", arguments: ["", "   "])
    func blankQuery(query: String) {
        let terms = SearchTerms(query)
        #expect(!terms.hasNoSearchableWords && terms.matchesEverything && terms.matches(record("Anything")))
        #expect(!SearchTerms("rome ...").hasNoSearchableWords)
    }

    @Test("ranking: title start, then title, then author")
    func ranking() {
        let terms = SearchTerms("rome")
        #expect(terms.rank(record("Rome and Its Rivals")) == 0)
        #expect(terms.rank(record("A History of Rome")) == 1)
        #expect(terms.rank(record("Empire", author: "Romeo Smith")) == 2)
    }

    func book(
        _ title: String, author: String = "", isbn: String? = nil, publisher: String = "", series: String = "",
        tags: [String] = [], notes: String = ""
    ) throws -> BookRecord {
        let details = try BookDetails(isbn: isbn, publisher: publisher, series: series, tags: tags, notes: notes)
            .validated()
        return BookRecord(id: 1, title: title, revision: 1, author: author, details: details)
    }

    @Test("the series, the publisher and each tag are searched, ranked after the title and the author")
    func otherFields() throws {
        let tagged = try book(
            "Dune", author: "Frank Herbert", publisher: "Chilton", series: "Dune Chronicles",
            tags: ["science fiction", "classic"])
        #expect(SearchTerms("chron").matches(tagged))
        #expect(SearchTerms("chilt").matches(tagged))
        #expect(SearchTerms("scien fic").matches(tagged))
        #expect(SearchTerms("classic herb").matches(tagged))
        #expect(SearchTerms("chron").rank(tagged) == 3)
        #expect(SearchTerms("classic herb").rank(tagged) == 3, "one word needed a tag")
        #expect(SearchTerms("herb").rank(tagged) == 2)
        #expect(SearchTerms("dune").rank(tagged) == 0, "the title still decides when it holds every word")
        #expect(!SearchTerms("zzz").matches(tagged))
    }

    @Test("a word of several tokens lies within one field: it never spans the series and the publisher")
    func noSpanningFields() throws {
        let spread = try book("Anything", publisher: "Fi Press", series: "Hi", tags: ["lo", "fi"])
        #expect(SearchTerms("fi-press").matches(spread))
        #expect(!SearchTerms("hi-fi").matches(spread))
        #expect(!SearchTerms("lo-fi").matches(spread), "two tags are two texts")
    }

    @Test("notes are never searched")
    func notesAreNotSearched() throws {
        let annotated = try book("Anything", notes: "A marvellous zeppelin")
        #expect(!SearchTerms("zeppelin").matches(annotated))
    }

    @Test("a query that is an ISBN finds its book first, typed as ISBN-10 or ISBN-13, with hyphens or not")
    func isbnQueries() throws {
        let kr = try book("The C Programming Language", isbn: "978-0-13-110362-7")
        let other = try book("Another", isbn: "9780306406157")
        for query in ["9780131103627", "978-0-13-110362-7", "0131103628", "0-13-110362-8", " 0 13 110362 8 "] {
            let terms = SearchTerms(query)
            #expect(terms.isbn == "9780131103627", "\(query)")
            #expect(terms.matches(kr) && terms.rank(kr) == -1, "\(query)")
            #expect(!terms.matches(other), "\(query)")
        }
        let wrongCheckDigit = SearchTerms("9780131103626")
        #expect(wrongCheckDigit.isbn == nil && !wrongCheckDigit.matches(kr), "a wrong check digit is only text")
        #expect(SearchTerms("programming").isbn == nil)
    }

    @Test("highlight ranges cover the matched prefix of each word")
    func highlights() {
        let title = "A History of Rome"
        let ranges = SearchTerms("hist ro").highlightRanges(in: title)
        #expect(ranges.map { String(title[$0]) } == ["Hist", "Ro"])
        let accented = "Le Café"
        #expect(SearchTerms("cafe").highlightRanges(in: accented).map { String(accented[$0]) } == ["Café"])
    }

    /// ASCII text is folded and cut into tokens byte by byte, for speed; it must give what the
    /// Unicode rules give. A middle dot (punctuation) at the end of a text adds no token but
    /// takes it down the Unicode path, so each text is checked against itself with one.
    @Test("ASCII text is folded and tokenised as the Unicode rules do")
    func asciiTextFollowsTheUnicodeRules() {
        let characters = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        var texts = characters.flatMap { ["\($0)", "a\($0)b", "Q \($0)\($0)9 z"] }
        var random = LatencySchedule.SplitMix64(seed: 15)
        for _ in 0..<2_000 {
            texts.append(
                (0..<Int.random(in: 1...24, using: &random)).map { _ in characters.randomElement(using: &random)! }
                    .joined())
        }
        for text in texts {
            #expect(
                SearchTerms.fold(text)
                    == text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil),
                "fold of \(text.debugDescription)")
            let viaUnicode = text + "\u{B7}"
            let tokens = SearchTerms.tokens(of: text)
            #expect(tokens == SearchTerms.tokens(of: viaUnicode), "tokens of \(text.debugDescription)")
            // Every token as a query, and the first two together, highlight the same places.
            for query in tokens + [tokens.prefix(2).joined(separator: " ")] {
                let terms = SearchTerms(query)
                let offsets = terms.highlightRanges(in: text).map {
                    $0.lowerBound.utf16Offset(in: text)..<$0.upperBound.utf16Offset(in: text)
                }
                let expected = terms.highlightRanges(in: viaUnicode).map {
                    $0.lowerBound.utf16Offset(in: viaUnicode)..<$0.upperBound.utf16Offset(in: viaUnicode)
                }
                #expect(offsets == expected, "highlights of \(query.debugDescription) in \(text.debugDescription)")
            }
        }
    }
}

@Suite("Validation")
struct ValidationTests {
    @Test("titles are trimmed and bounded") func titles() throws {
        #expect(try BookValidation.title("  Dune \n") == "Dune")
        #expect(throws: BookFailure.invalidTitle) { try BookValidation.title("   ") }
        #expect(throws: BookFailure.invalidTitle) { try BookValidation.title(String(repeating: "x", count: 501)) }
        #expect(throws: BookFailure.invalidTitle) { try BookValidation.title("Bad\u{1B}[31mTitle") }
        #expect(throws: BookFailure.invalidTitle) { try BookValidation.title("Evil\u{202E}txt") }
        #expect(try BookValidation.title("日本の歴史 📚") == "日本の歴史 📚")
    }

    @Test("authors may be empty but not hostile") func authors() throws {
        #expect(try BookValidation.author("") == "")
        #expect(throws: BookFailure.invalidAuthor) { try BookValidation.author("a\u{7}b") }
    }

    @Test("the repository refuses an invalid title before touching the store") func repositoryValidates() async throws {
        let remote = MemoryBookRemote([1: BookRecord(id: 1, title: "Dune", revision: 1)])
        let repository = BookRepository(remote: remote)
        await #expect(throws: BookFailure.invalidTitle) {
            try await repository.update(id: 1, title: " \t", expectedRevision: 1)
        }
        #expect(try await repository.book(id: 1, policy: .cached).title == "Dune")
    }
}
