import BookCatalog

/// The first page of a word query without counting its matches, while the index is built or
/// caught up: when enough books' titles begin with the first word (rank 0), the page is those
/// books in title order, and they sit together in the title index. Reading them there takes
/// as long as the page, not the catalog, so the page is shown at once and counted afterwards
/// (`TotalCount.counting`, by the same search without `SearchQuery.countLater`).
///
/// Which rows can rank 0: a title whose folded key begins with a letter or digit begins with
/// that character's token, so only keys beginning with the first word's first token can,
/// and keys that begin with no token at all (punctuation, spaces). Those with an ASCII first
/// byte sort before every letter and digit, or between the digits and the letters; the rest
/// (beyond ASCII) sort after every ASCII key, so they matter only when the page is not full
/// before them, and then this gives up. Every row read is judged exactly as
/// `UnindexedSearch` judges it, so the page is the one the index would give.
final class TitleOrderPage {
    /// Rows read before giving up: a page that needs more is left to the whole answer, which
    /// the count reads anyway. Titles beginning with a one-word query are all its first rank,
    /// so only a page of several words needs more than its own rows.
    static let rowLimit = 1_024

    /// The last query given up on. A query that narrows it with the same first token reads
    /// the same rows and finds no more of its first rank among them (narrowing only removes
    /// matches), so it is not tried: typing on in a long query costs nothing here.
    private var gaveUp: (words: [UnindexedSearch.Word], ranges: [Range<String>], wanted: Int)?

    /// The page's ids, and how many matches were seen (at least the page); nil when the page
    /// is not made of title-beginning matches found among the first `rowLimit` rows.
    func page(_ terms: SearchTerms, offset: Int, limit: Int, connection: Connection, scope: String) throws -> (ids: [Int], seen: Int)? {
        let words = terms.words.map(UnindexedSearch.Word.init)
        let wanted = offset + limit
        guard let first = words.first, let ranges = Self.keyRanges(firstToken: first.exact.first ?? first.prefixBytes),
              wanted > 0, wanted <= Self.rowLimit
        else { return nil }
        if let gaveUp, gaveUp.ranges == ranges, wanted >= gaveUp.wanted, UnindexedSearch.Word.narrows(words, gaveUp.words) { return nil }
        var judge = UnindexedSearch.Judge(words: words, wanted: wanted, recordingUpTo: nil)
        if try read(ranges, into: &judge, wanted: wanted, connection: connection, scope: scope) {
            gaveUp = nil
            let (ids, seen) = judge.answer(offset: offset, limit: limit)
            return (ids, seen)
        }
        gaveUp = (words, ranges, wanted)
        return nil
    }

    /// Reads `ranges` in title order until `wanted` rows of the first rank; false when they
    /// are not there within `rowLimit` rows.
    private func read(_ ranges: [Range<String>], into judge: inout UnindexedSearch.Judge, wanted: Int,
                      connection: Connection, scope: String) throws -> Bool {
        let statement = try connection.statement(
            "SELECT id, title_key, title_terms, author_terms FROM books "
                + "WHERE scope = ?1 AND title_key >= ?2 AND title_key < ?3 ORDER BY title_key, id")
        var read = 0
        for range in ranges {
            try statement.bind([.text(scope), .text(range.lowerBound), .text(range.upperBound)])
            defer { statement.reset() }
            while judge.firstRankCount < wanted, try statement.step() {
                read += 1
                guard read <= Self.rowLimit else { return false }
                judge.offer(id: statement.int(0), key: statement.bytes(1), title: statement.bytes(2), author: statement.bytes(3))
            }
            if judge.firstRankCount >= wanted { return true }
        }
        return false
    }

    /// The title-key ranges, in title order, that hold every book whose title can begin with
    /// `token`, or nil when its first byte is not an ASCII letter or digit.
    static func keyRanges(firstToken token: [UInt8]) -> [Range<String>]? {
        guard let lead = token.first, LetterPlaces.number(of: lead) != nil else { return nil }
        // The token's ASCII part bounds the keys that begin with it.
        let start = Array(token.prefix { $0 < 0x80 })
        let end = start.dropLast() + [start.last! + 1]
        var ranges = ["" ..< "0"]  // controls, space and punctuation below the digits
        if lead >= UInt8(ascii: "a") { ranges.append(":" ..< "a") }  // punctuation between digits and letters
        ranges.append(String(decoding: start, as: UTF8.self) ..< String(decoding: end, as: UTF8.self))
        return ranges
    }
}
