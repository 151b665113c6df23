import CatalogSimulation
import Foundation
@testable import PostgresCatalog
import Testing

/// The tags' reader answers as `JSONDecoder` did for `[String?]`, on what `array_to_json` writes
/// and on text no server should send.
@Suite struct JSONStringArrayTests {
    static func decoded(_ text: String) -> [String?]? {
        try? JSONDecoder().decode([String?].self, from: Data(text.utf8))
    }

    @Test("arrays of awkward strings, written by JSONEncoder and by hand, read as the decoder reads them")
    func agreesWithTheDecoder() throws {
        let awkward: [String?] = [
            "", "a", "Science fiction", "say \"hi\"", "back\\slash", "slash/", "日本文学", "😀", "e\u{301}", nil,
            "\u{0}", "\u{1B}[31m", "tab\tnew\nline\r", "\u{7F}\u{80}\u{9F}", "\u{2028}\u{2029}", "\u{FEFF}",
        ]
        var texts = [
            "[]", " [ ] ", "[null]", "[\"a\",null,\"b\"]", "\n[\t\"a\" ,\r\"b\" ]\n", "[\"\\u00e9\\u0301\"]",
            "[\"\\ud83d\\ude00\"]", "[\"\\uD83D\\uDE00\"]", "[\"\\/\\b\\f\"]",
            // Malformed: each must be refused.
            "", "[", "]", "[\"a\"", "[\"a\",]", "[,]", "[\"a\" \"b\"]", "[1]", "[[\"a\"]]", "{}", "[\"a\"]x",
            "[nul]", "[nullx]", "[\"\\x\"]", "[\"\\u12\"]", "[\"\\ud83d\"]", "[\"\\ude00\"]", "[\"\\ud83d\\u0041\"]",
            "[\"raw\ttab\"]", "[\"raw\nline\"]", "[\"unterminated]", "null", "\"a\"", "[true]",
        ]
        var generator = LatencySchedule.SplitMix64(seed: 7)
        for _ in 0..<300 {
            let count = Int(generator.next() % 5)
            let elements = (0..<count).map { _ in awkward[Int(generator.next() % UInt64(awkward.count))] }
            texts.append(String(decoding: try JSONEncoder().encode(elements), as: UTF8.self))
        }
        for text in texts {
            let read = JSONStringArray.elements(of: text)
            let expected = Self.decoded(text)
            #expect(read == expected, "\(text.debugDescription): \(String(describing: read))")
        }
    }

    @Test("arrays written here, and arrays of them, read back as the decoder reads them")
    func writtenArraysDecode() throws {
        let awkward: [String?] = [
            "", "a", "say \"hi\"", "back\\slash", "\\\"", "slash/", "日本文学", "😀", "e\u{301}", nil, "\u{0}",
            "\u{1B}[31m", "tab\tnew\nline\r", "\u{1F}\u{20}", "\u{7F}\u{80}\u{9F}", "\u{2028}\u{2029}", "\u{FEFF}",
        ]
        var generator = LatencySchedule.SplitMix64(seed: 11)
        var rows: [[String?]] = []
        for _ in 0..<200 {
            let count = Int(generator.next() % 5)
            rows.append((0..<count).map { _ in awkward[Int(generator.next() % UInt64(awkward.count))] })
        }
        for row in rows {
            #expect(Self.decoded(JSONStringArray.text(of: row)) == row, "\(row)")
        }
        let written = JSONStringArray.text(ofRows: rows)
        #expect(try JSONDecoder().decode([[String?]].self, from: Data(written.utf8)) == rows)
        #expect(JSONStringArray.text(ofRows: []) == "[]" && JSONStringArray.text(of: []) == "[]")
    }
}
