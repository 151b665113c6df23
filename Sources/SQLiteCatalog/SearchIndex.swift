import BookCatalog
import Foundation

/// The search index of one remote: an immutable `SearchIndexBase` (one scope's books as of
/// one `change_seq`, built or loaded from the catalog's snapshot) plus the rows committed
/// since (by anyone), found through `change_seq`.
///
/// Why in memory: a prefix of one or two letters matches hundreds of thousands of books, and
/// the answer must be ranked (`SearchTerms.sortKey`) and counted exactly. FTS5 can find them
/// but must then count and sort every match through SQL (over 80 ms for one letter on a
/// million books); here every book has an ordinal in result order and ranking is bit
/// arithmetic over posting lists (see `SearchIndexBase`).
///
/// Rows changed after the base are kept in an overlay (the changed rows, judged on their
/// stored terms exactly as `UnindexedSearch` judges rows) and merged into results by
/// position; the superseded base entries are hidden by a bitmap. A large overlay asks for a
/// rebuild. A *bridge* is an index over a stored base too far behind for that: it may hold a
/// larger overlay, and serves only while the rebuild it waits for runs.
final class SearchIndex {
    let base: SearchIndexBase
    /// How many changed rows this index may hold before it must be replaced.
    let overlayLimit: Int
    let isBridge: Bool
    private(set) var syncedSequence: Int
    private var hidden: Bitmap?
    private var hiddenCount = 0
    private var overlay: [Int: OverlayBook] = [:]

    init(base: SearchIndexBase, isBridge: Bool = false) {
        self.base = base
        self.isBridge = isBridge
        overlayLimit = isBridge ? Self.bridgeLimit(bookCount: base.count) : Self.overlayLimit(bookCount: base.count)
        syncedSequence = base.sequence
    }

    var count: Int { base.count }
    var overlayCount: Int { overlay.count }
    static func overlayLimit(bookCount: Int) -> Int { 1_024 + bookCount / 512 }
    /// A stale stored index is still worth bridging a rebuild with while catching up costs less
    /// than a scan of the books table: a few hundred milliseconds, once.
    static func bridgeLimit(bookCount: Int) -> Int { 4 * overlayLimit(bookCount: bookCount) }

    private struct OverlayBook {
        let id: Int
        let key: [UInt8]
        let titleTerms: [UInt8]
        let authorTerms: [UInt8]
        /// The position among the base books that are still current (not hidden): the
        /// overlay book goes right before that ordinal.
        let basePosition: Int

        static func sortsBefore(_ a: OverlayBook, _ b: OverlayBook) -> Bool {
            if a.basePosition != b.basePosition { return a.basePosition < b.basePosition }
            if a.key != b.key { return a.key.lexicographicallyPrecedes(b.key) }
            return a.id < b.id
        }
    }

    // MARK: Catching up

    /// Replays rows of `scope` committed after the last sync (by anyone) into the overlay.
    /// Runs inside the caller's read transaction, at `sequence`.
    func catchUp(connection: Connection, scope: String, sequence: Int) throws {
        guard sequence > syncedSequence else { return }
        // `+scope` keeps SQLite from using the scope index, which would read the whole scope;
        // the change_seq index reads only the changed rows.
        let rows = try connection.query(
            "SELECT id, title_key, title_terms, author_terms FROM books WHERE change_seq > ?1 AND +scope = ?2",
            [.int(syncedSequence), .text(scope)]
        ) { row in
            OverlayBook(id: row.int(0), key: Array(row.bytes(1)), titleTerms: Array(row.bytes(2)), authorTerms: Array(row.bytes(3)),
                        basePosition: 0)
        }
        // The greatest base book before each changed row that is still current: the base keeps
        // no titles, but the rows unchanged since the base (change_seq <= base.sequence) are
        // exactly the current base books, in the same order.
        var neighbours: [Int: Int] = [:]
        for row in rows {
            neighbours[row.id] = try connection.queryFirst(
                """
                SELECT id FROM books
                WHERE scope = ?1 AND (title_key, id) < (?2, ?3) AND change_seq <= ?4
                ORDER BY title_key DESC, id DESC LIMIT 1
                """,
                [.text(scope), .text(String(decoding: row.key, as: UTF8.self)), .int(row.id), .int(base.sequence)]) { $0.int(0) }
        }
        // Ordinals of the rows' old base entries (to hide) and of the neighbours, in one pass.
        if maximumStoredID == nil { maximumStoredID = try base.largestID() }
        let largestBaseID = maximumStoredID!
        var wanted = Set(neighbours.values)
        for row in rows where overlay[row.id] == nil && row.id <= largestBaseID { wanted.insert(row.id) }
        let ordinals = try base.ordinals(of: wanted)
        for row in rows {
            if overlay[row.id] == nil, let ordinal = ordinals[row.id] {
                if hidden == nil { hidden = Bitmap(count: base.count) }
                hidden!.insert(ordinal)
                hiddenCount += 1
            }
            let position = neighbours[row.id].flatMap { ordinals[$0] }.map { $0 + 1 } ?? 0
            overlay[row.id] = OverlayBook(id: row.id, key: row.key, titleTerms: row.titleTerms, authorTerms: row.authorTerms,
                                          basePosition: position)
        }
        syncedSequence = sequence
    }

    private var maximumStoredID: Int?

    // MARK: Searching

    /// The ids of the matches at `offset..<offset+limit` in result order, and the total.
    /// Throws when a part of a stored index it reads fails its checks.
    func search(_ terms: SearchTerms, offset: Int, limit: Int) throws(SearchIndexDamage) -> (ids: [Int], total: Int) {
        guard !terms.hasNoSearchableWords else { return ([], 0) }
        let wanted = offset + limit
        var matches = SearchIndexBase.Matches(cap: wanted)
        var overlayMatches: [[OverlayBook]] = [[], [], []]
        if terms.isEmpty {
            collectAll(into: &matches)
            overlayMatches[0] = Array(overlay.values)
        } else {
            if let words = base.compile(terms) {
                try base.collect(words, hidden: hidden, into: &matches)
            }
            let words = terms.words.map(UnindexedSearch.Word.init)
            var tokens = UnindexedSearch.Tokens()
            for book in overlay.values {
                let rank = book.titleTerms.withUnsafeBufferPointer { title in
                    book.authorTerms.withUnsafeBufferPointer { author in
                        tokens.read(title: title, author: author)
                        return tokens.rank(words)
                    }
                }
                if let rank { overlayMatches[rank].append(book) }
            }
        }
        var result: [Int] = []
        var position = 0
        for rank in 0..<3 where position < wanted {
            let extra = overlayMatches[rank].sorted(by: OverlayBook.sortsBefore)
            let rankEnd = position + matches.counts[rank] + extra.count
            if rankEnd <= offset { position = rankEnd; continue }
            let listed = matches.ordinals[rank]
            var nextBase = 0, nextExtra = 0
            while position < wanted && position < rankEnd {
                let takeExtra = nextExtra < extra.count
                    && (nextBase >= listed.count || extra[nextExtra].basePosition <= Int(listed[nextBase]))
                // Ids are read only for the page itself (each read checks its block).
                if takeExtra {
                    if position >= offset { result.append(extra[nextExtra].id) }
                    nextExtra += 1
                } else {
                    if position >= offset { result.append(try base.id(Int(listed[nextBase]))) }
                    nextBase += 1
                }
                position += 1
            }
            position = rankEnd
        }
        let total = matches.counts.reduce(0, +) + overlayMatches.reduce(0) { $0 + $1.count }
        return (result, total)
    }

    private func collectAll(into matches: inout SearchIndexBase.Matches) {
        guard let hidden else {
            matches.counts[0] = base.count
            matches.ordinals[0] = (0..<Int32(min(base.count, matches.cap))).map { $0 }
            return
        }
        for ordinal in 0..<base.count where !hidden.contains(ordinal) { matches.add(ordinal, rank: 0) }
    }
}
