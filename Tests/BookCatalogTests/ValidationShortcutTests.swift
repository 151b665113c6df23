@testable import BookCatalog
import CatalogSimulation
import Testing

/// The byte-level shortcuts the rules take for printable ASCII (every row a store reads is
/// checked with them, so they are on every search's path) answer as the rules' definitions,
/// stated here over scalars, on text chosen to sit at their edges.
@Suite struct ValidationShortcutTests {
    static let corpus: [String] = [
        "", " ", "  \t ", "a", " a", "a ", "\ta\t", "Dune", "Science fiction", "x\u{301}", " \u{301}",
        "-\u{301}", "\u{00A0}", "a\u{00A0}", "\u{00A0}a", "\u{2028}", "a\u{2028}", "\u{0085}a", "\u{2029}",
        "\u{200B}", "a\u{200B}", "\u{FEFF}", "\u{FFFE}", "\r\n", "a\r\nb", "line\nbreak", "\n", "a\n",
        "\u{1B}[31m", "a\u{7F}", "\u{9F}", "a\u{061C}b", "\u{202E}evil", "日本文学", " 日本 ", "😀", "e\u{301}",
        "tab\there", "\u{3000}", "a,b", "~", "!", "\u{7E}\u{7F}",
    ]

    static func referenceTrim(_ text: String) -> String {
        let scalars = text.unicodeScalars
        let trimmed = { (scalar: Unicode.Scalar) in
            scalar.properties.isWhitespace && ![0x85, 0x2028, 0x2029].contains(scalar.value)
        }
        guard let start = scalars.firstIndex(where: { !trimmed($0) }),
            let end = scalars.lastIndex(where: { !trimmed($0) })
        else { return "" }
        return String(scalars[start...end])
    }

    @Test("blank, control characters and trimming agree with their definitions")
    func shortcutsAgree() {
        for text in Self.corpus {
            #expect(
                BookValidation.isBlank(text) == text.unicodeScalars.allSatisfy(BookValidation.isInvisible), "\(text)")
            #expect(
                BookValidation.hasControlCharacters(text)
                    == text.unicodeScalars.contains(where: BookValidation.isControl), "\(text)")
            #expect(
                BookValidation.hasControlCharacters(text, besides: "\n")
                    == text.unicodeScalars.contains { $0 != "\n" && BookValidation.isControl($0) }, "\(text)")
            #expect(BookValidation.trim(text) == Self.referenceTrim(text), "\(text)")
        }
    }

    @Test("thirteen digits answer as the same digits with a hyphen, which take the general path")
    func thirteenDigitsAgree() {
        var generator = LatencySchedule.SplitMix64(seed: 41)
        var digitStrings = ["9780306406157", "9791090636071", "9780306406158", "1230306406157", "9770306406157"]
        for _ in 0..<2_000 {
            let prefix = ["978", "979", "977", "000"][Int(generator.next() % 4)]
            digitStrings.append(prefix + String((0..<10).map { _ in Character(String(generator.next() % 10)) }))
        }
        for digits in digitStrings {
            let general = String(digits.prefix(3)) + "-" + String(digits.dropFirst(3))
            #expect(ISBN.canonical(digits) == ISBN.canonical(general), "\(digits)")
        }
        #expect(ISBN.canonical("9780306406157") == .success("9780306406157"))
    }

    @Test("stored tags are read as the rule for one tag at a time, then the set, says")
    func storedTagsAgree() {
        let lists: [[String]] = [
            [], ["b", "A", "a", " c ", ""], ["x,y", "ok"], ["\u{1B}bad", "fine"], ["日本文学", "Ünïcode", "unicode"],
            (0..<60).map { "tag \($0 % 55)" }, ["  ", "\u{200B}"], [String(repeating: "w", count: 201), "short"],
        ]
        for tags in lists {
            // The rule as stated before the shortcut: each tag as one set of one, the first
            // ones that stay distinct when folded, up to the maximum, then kept as a set.
            var seen = Set<String>(), distinct: [String] = []
            for tag in tags {
                let visible = String(
                    String.UnicodeScalarView(
                        tag.unicodeScalars.map { BookValidation.isControl($0) ? "\u{FFFD}" : $0 }))
                guard distinct.count < BookValidation.maximumTagCount,
                    let valid = try? BookValidation.tags([visible]).first,
                    seen.insert(SearchTerms.fold(valid)).inserted
                else { continue }
                distinct.append(valid)
            }
            let expected = (try? BookValidation.tags(distinct)) ?? []
            let read = BookDetails(
                stored: nil, year: nil, publisher: "", series: "", seriesIndex: nil, tags: tags, notes: "")
            #expect(read.tags == expected, "\(tags)")
        }
    }
}
