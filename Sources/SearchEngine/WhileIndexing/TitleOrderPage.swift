import BookCatalog

/// The first page of a word query without counting its matches, while the index is built or
/// caught up: when enough books' titles begin with the first word (rank 0), the page is those
/// books in title order, and they sit together in the title index. Reading them there takes
/// as long as the page, not the catalog, so the page is shown at once and counted afterwards
/// (`TotalCount.counting`, by the same search without `SearchQuery.countLater`).
///
/// Which rows can rank 0: a title whose folded key begins with a character of a token (a
/// letter, digit, Han, kana or Hangul character, symbol) begins with that token, so only keys
/// beginning with the first word's first character can, and keys whose first character only
/// separates tokens (punctuation, spaces: `SeparatorKeys`). Of those, the ones below the first
/// word's first character are read first; the ones above sort after every key beginning with
/// it, so they matter only when the page is not full before them, and then this gives up. Every
/// row read is judged by the row matcher every path uses (`RowJudge`), so the page is the one the index
/// would give. (Before, only a first character in ASCII was answered here: a first key beyond
/// it, "日", read the whole table on a catalog's first open: `keys --count 1000000 --no-index`.)
package final class TitleOrderPage {
    /// The last query given up on. A query that narrows it with the same first token reads
    /// the same rows and finds no more of its first rank among them (narrowing only removes
    /// matches), so it is not tried: typing on in a long query costs nothing here.
    private var gaveUp: (words: [QueryWord], ranges: [KeyRange], wanted: Int)?

    package init() {}

    /// The page's ids, and how many matches were seen (at least the page); nil when the page
    /// is not made of title-beginning matches found among the first `rowLimit` rows.
    package func page(_ terms: SearchTerms, offset: Int, limit: Int, source: any SearchSource) throws -> (
        ids: [Int], seen: Int
    )? {
        let words = terms.words.map(QueryWord.init)
        let wanted = offset + limit
        guard let first = words.first, let ranges = Self.keyRanges(firstToken: first.exact.first ?? first.prefixBytes),
            wanted > 0, wanted <= SearchTuning.titleOrderRows
        else { return nil }
        if let gaveUp, gaveUp.ranges == ranges, wanted >= gaveUp.wanted, QueryWord.narrows(words, gaveUp.words) {
            return nil
        }
        var judge = RowJudge(words: words, wanted: wanted, recordingUpTo: nil)
        if try read(ranges, into: &judge, wanted: wanted, source: source) {
            gaveUp = nil
            let (ids, seen) = judge.answer(offset: offset, limit: limit)
            return (ids, seen)
        }
        gaveUp = (words, ranges, wanted)
        return nil
    }

    /// Reads `ranges` in title order until `wanted` rows of the first rank; false when they
    /// are not there within `rowLimit` rows.
    private func read(
        _ ranges: [KeyRange], into judge: inout RowJudge, wanted: Int,
        source: any SearchSource
    ) throws -> Bool {
        var read = 0
        for range in ranges {
            var overLimit = false
            guard judge.firstRankCount < wanted else { return true }
            try source.booksInTitleOrder(from: Array(range.from.utf8), upTo: Array(range.upTo.utf8)) { book in
                read += 1
                guard read <= SearchTuning.titleOrderRows else {
                    overLimit = true
                    return false
                }
                judge.offer(
                    id: book.id, key: book.titleKey, title: book.titleTerms, author: book.authorTerms,
                    other: book.otherTerms)
                return judge.firstRankCount < wanted
            }
            if overLimit { return false }
            if judge.firstRankCount >= wanted { return true }
        }
        return false
    }

    /// The title-key ranges, in title order, that hold every book whose title can begin with
    /// `token`: keys whose first character only separates tokens (below the token's first
    /// character; those above sort after every key beginning with it), and keys beginning with
    /// the token's first character (and, of a token beginning in ASCII, its whole ASCII part).
    /// Nil for a token beginning beyond the Basic Multilingual Plane.
    /// Derived from the rule rather than restating it: the separators are `SearchTerms.beginsAToken`
    /// false (`SeparatorKeys`), and a first token can only begin a key with its first character.
    package static func keyRanges(firstToken token: [UInt8]) -> [KeyRange]? {
        guard let lead = String(decoding: token, as: UTF8.self).unicodeScalars.first, lead.value < 0x10000 else {
            return nil
        }
        let start = lead.isASCII ? Array(token.prefix { $0 < 0x80 }) : Array(String(lead).utf8)
        let end = start.dropLast() + [start.last! + 1]
        return SeparatorKeys.ranges(below: lead)
            + [KeyRange(from: String(decoding: start, as: UTF8.self), upTo: String(decoding: end, as: UTF8.self))]
    }
}
