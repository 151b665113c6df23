import BookCatalog

/// Answers a search from the books table itself, for while the search index is being built
/// or caught up: the same matches, in the same order, with the same exact total as
/// `SearchIndex`, so switching to the index changes nothing but speed.
///
/// SQLite reads the table in file order (sequential; the scope index would read it in title
/// order, one random page per row, ten times slower) and narrows the rows to those holding the
/// longest token of every query word somewhere in their derived terms (`instr`, a superset);
/// each remaining row is then judged on its tokens exactly as `SearchIndexBase` judges a book
/// (`SearchTerms.rank`'s rules), and ordered by rank, `title_key` bytes, then id, as the index
/// orders its ordinals. Only the best `offset + limit` rows of each rank are kept, so memory
/// stays small for broad queries. Query text only ever reaches SQL as bound values.
struct UnindexedSearch {
    let connection: Connection
    let scope: String

    func search(_ terms: SearchTerms, offset: Int, limit: Int) throws -> (ids: [Int], total: Int) {
        guard !terms.hasNoSearchableWords else { return ([], 0) }
        if terms.isEmpty {
            // Counting stops where the page would say "at least" anyway.
            let countLimit = SearchIndex.countLimit(offset: offset, limit: limit)
            let total = try connection.queryFirst(
                "SELECT count(*) FROM (SELECT 1 FROM books WHERE scope = ?1 LIMIT ?2)", [.text(scope), .int(countLimit)]) { $0.int(0) } ?? 0
            let ids = try connection.query(
                "SELECT id FROM books WHERE scope = ?1 ORDER BY title_key, id LIMIT ?2 OFFSET ?3",
                [.text(scope), .int(limit), .int(offset)]) { $0.int(0) }
            return (ids, total)
        }
        // A scan takes a while (a third of a second at a million books): a search replaced by
        // the next key stops at once instead of keeping the connection from the next search.
        return try connection.cancellable { try rankedScan(terms, offset: offset, limit: limit) }
    }

    private func rankedScan(_ terms: SearchTerms, offset: Int, limit: Int) throws -> (ids: [Int], total: Int) {
        let countLimit = SearchIndex.countLimit(offset: offset, limit: limit)
        let words = terms.words.map(Word.init)
        let filters = words.indices.map { "(instr(title_terms, ?\($0 + 2)) OR instr(author_terms, ?\($0 + 2)))" }
        let statement = try connection.statement(
            "SELECT id, title_key, title_terms, author_terms FROM books NOT INDEXED WHERE scope = ?1 AND "
                + filters.joined(separator: " AND "))
        try statement.bind([.text(scope)] + words.map { .text(String(decoding: $0.longestToken, as: UTF8.self)) })
        defer { statement.reset() }

        var ranks = [Best(wanted: offset + limit), Best(wanted: offset + limit), Best(wanted: offset + limit)]
        var tokens = Tokens()
        while try statement.step() {
            tokens.read(title: statement.bytes(2), author: statement.bytes(3))
            guard let rank = tokens.rank(words) else { continue }
            ranks[rank].offer(id: statement.int(0), key: statement.bytes(1))
        }
        let ordered = ranks.flatMap { $0.sorted().map(\.id) }
        return (Array(ordered.dropFirst(offset).prefix(limit)), min(ranks.reduce(0) { $0 + $1.count }, countLimit))
    }

    /// One query word as the index compiles it: exact tokens, then a prefix.
    struct Word {
        let exact: [[UInt8]]
        let prefix: String
        let prefixBytes: [UInt8]
        let asciiPrefix: Bool

        init(_ parts: [String]) {
            let normalized = parts.map(BookText.normalized)
            exact = normalized.dropLast().map { Array($0.utf8) }
            prefix = normalized.last!
            prefixBytes = Array(prefix.utf8)
            asciiPrefix = prefixBytes.allSatisfy { $0 < 0x80 }
        }

        /// The token that narrows the rows most cheaply: any match holds its bytes.
        var longestToken: [UInt8] { (exact + [prefixBytes]).max { $0.count < $1.count }! }

        /// False when some token of the word is nowhere in the text as bytes, so it cannot
        /// match: a quick test before the text is cut into tokens.
        func mayMatch(title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>) -> Bool {
            func occurs(_ needle: [UInt8]) -> Bool { Self.occurs(needle, in: title) || Self.occurs(needle, in: author) }
            return occurs(prefixBytes) && exact.allSatisfy(occurs)
        }

        private static func occurs(_ needle: [UInt8], in text: UnsafeBufferPointer<UInt8>) -> Bool {
            guard let first = needle.first else { return true }
            guard text.count >= needle.count else { return false }
            for start in 0...(text.count - needle.count) where text[start] == first {
                var matched = 1
                while matched < needle.count && text[start + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return true }
            }
            return false
        }

        func matches(_ tokens: ArraySlice<UnsafeBufferPointer<UInt8>>) -> Bool {
            for (token, part) in zip(tokens, exact) where !token.elementsEqual(part) { return false }
            let last = tokens[tokens.startIndex + exact.count]
            guard last.starts(with: prefixBytes) else { return false }
            return SearchIndexBase.isCharacterPrefix(prefix, prefixBytes: prefixBytes, asciiPrefix: asciiPrefix, of: last)
        }
    }

    /// One row's title and author tokens (views into the statement's current row).
    struct Tokens {
        var all: [UnsafeBufferPointer<UInt8>] = []
        var titleCount = 0

        mutating func read(title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>) {
            all.removeAll(keepingCapacity: true)
            TokenTable.forEachToken(title) { all.append($0) }
            titleCount = all.count
            TokenTable.forEachToken(author) { all.append($0) }
        }

        /// The rank `SearchTerms.rank` gives, or nil when some word matches nowhere.
        func rank(_ words: [Word]) -> Int? {
            BookRank.rank(words: words.count, titleCount: titleCount, tokenCount: all.count,
                          length: { words[$0].exact.count + 1 },
                          matches: { words[$0].matches(all[$1..<$1 + words[$0].exact.count + 1]) })
        }
    }

    /// The first `wanted` of one rank's matches in (title_key bytes, id) order, and how many there were.
    struct Best {
        let wanted: Int
        private(set) var count = 0
        private var kept: [(key: [UInt8], id: Int)] = []
        /// Once `kept` was trimmed, anything not before this entry can never be among the first `wanted`.
        private var worst: (key: [UInt8], id: Int)?

        init(wanted: Int) { self.wanted = wanted }

        mutating func offer(id: Int, key: UnsafeBufferPointer<UInt8>) {
            count += 1
            guard wanted > 0 else { return }
            if let worst, !worst.key.withUnsafeBufferPointer({ ByteOrder.precedes(key, id, $0, worst.id) }) { return }
            kept.append((Array(key), id))
            if kept.count >= 2 * wanted + 64 { trim() }
        }

        func sorted() -> [(key: [UInt8], id: Int)] {
            Array(kept.sorted { ByteOrder.precedes($0.key, $0.id, $1.key, $1.id) }.prefix(wanted))
        }

        private mutating func trim() {
            kept = sorted()
            worst = kept.last
        }
    }
}
