import Foundation
@testable import SQLiteCatalog
import Testing

/// The tags column read without the JSON parser where it holds what `tagsJSON` writes for tags
/// that need no escape, and by the parser otherwise: whichever reads it, the answer is the
/// parser's, for text written by Bookshelf and by other programs.
@Suite struct StoredTagsTests {
    static let corpus: [String] = [
        #"["a"]"#, #"["a","b c"]"#, #"["Science fiction","日本文学","😀"]"#, #"["x\u0301"]"#, #"["a\"b"]"#,
        #"["back\\slash"]"#, #"[ "spaced" ]"#, #"["a", "b"]"#, #"["a",]"#, #"["a""b"]"#, #"["a",1]"#, #"[1]"#,
        #"["unterminated]"#, #"["a"]x"#, #"{"a":1}"#, #""a""#, #"["", ""]"#, #"["",""]"#, "[\"tab\there\"]",
        "[\"nl\nthere\"]", #"["del"]"#, "[\"a\u{7F}\"]", "[\"\u{2028}\"]", "", "[", "]", #"["]"#, #"[""]"#,
    ]

    static func parsed(_ stored: String) -> [String] {
        guard let array = try? JSONSerialization.jsonObject(with: Data(stored.utf8)) as? [Any] else { return [] }
        return array.compactMap { $0 as? String }
    }

    @Test func theShortcutAnswersAsTheParserOrLeavesItToIt() {
        for stored in Self.corpus {
            if let plain = StoredDetails.plainTags(stored) { #expect(plain == Self.parsed(stored), "\(stored)") }
            #expect(StoredDetails.tags(stored) == Self.parsed(stored), "\(stored)")
        }
    }

    @Test func tagsBookshelfWritesWithoutEscapesAreReadByTheShortcut() {
        for tags in [["a"], ["Science fiction", "日本文学", "😀"], ["", "x"], ["del\u{7F}"]] {
            #expect(StoredDetails.plainTags(StoredDetails.tagsJSON(tags)) == tags)
        }
        #expect(StoredDetails.plainTags(StoredDetails.tagsJSON(["say \"hi\""])) == nil)
        #expect(StoredDetails.tags(StoredDetails.tagsJSON(["say \"hi\"", "a\\b"])) == ["say \"hi\"", "a\\b"])
    }
}
