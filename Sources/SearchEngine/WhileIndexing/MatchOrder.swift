/// Every match of a broad scan (more than `LeadingMatches` keeps whole) in result order: rank,
/// title key bytes, id. It is built for the scan's rows that are in the table's copy
/// (`ScannedRows`, `BooksCopy`), once the scan is kept and its count is done, so that a
/// narrower query's page can be found by walking the matches in that order, as
/// `LeadingMatches` walks its first thousand, and stopping at the page.
///
/// Why: "mur" after "mu", at ten million books (`keys --count 10000000 --no-index`). "mu"
/// matches a large share of the books, and "mur"'s page is a page of Murakami's books, matched
/// by author. They come after all of "mu"'s title matches, far past its first thousand, and
/// judging every row to find that page takes far longer than a frame. In this order, the title matches are passed over on their masks (few of them have
/// a word beginning "mu" that goes on with "r": `FollowingBytes`), and the page is the
/// first few dozen author matches.
///
/// Narrowing never lowers a book's rank, nor changes its key, so a book still unread comes
/// after the row just judged (`LeadingMatches`): every match found that comes before that row
/// is placed for sure.
package struct MatchOrder {
    /// While the scan records its rows: each copied row's rank, and its key's first eight
    /// bytes (`ByteOrder.prefix`), which settle most comparisons of the sort.
    private var ranks: [UInt8] = []
    private var keyPrefixes: [UInt64] = []
    /// Once sorted: the copied rows' numbers in result order, and each one's mask
    /// (`FollowingBytes`): a walk passes over most rows on these, read in order, without
    /// reading them where they lie in the copy.
    package private(set) var rows: [UInt32] = []
    private var masks: [UInt64] = []
    /// Where in `rows` ranks 1, 2 and 3 begin.
    private var rankStarts: [Int] = []
    package private(set) var isSorted = false

    package var byteCount: Int {
        ranks.count + (keyPrefixes.count + masks.count) * MemoryLayout<UInt64>.stride + rows.count
            * MemoryLayout<UInt32>.stride
    }

    package mutating func append(rank: Int, keyPrefix: UInt64) {
        ranks.append(UInt8(rank))
        keyPrefixes.append(keyPrefix)
    }

    /// Sorts the rows recorded into result order. `key` reads a row's key, for rows whose
    /// ranks and first eight bytes are the same; rows were recorded in id order, so rows of
    /// one key stay in the order they came. `mask` gives a row's mask.
    package mutating func sort(key: (_ row: Int) -> UnsafeBufferPointer<UInt8>, mask: (_ row: Int) -> UInt64) {
        var entries = ranks.indices.map { (rank: ranks[$0], prefix: keyPrefixes[$0], row: UInt32($0)) }
        entries.sort { ($0.rank, $0.prefix, $0.row) < ($1.rank, $1.prefix, $1.row) }
        var start = 0
        while start < entries.count {
            var end = start + 1
            while end < entries.count
                && (entries[end].rank, entries[end].prefix) == (entries[start].rank, entries[start].prefix)
            { end += 1 }
            if end - start > 1 {
                // Each key read once: a run can be thousands of titles beginning "history ".
                let keys = entries[start..<end].map { key(Int($0.row)) }
                let order = keys.indices.sorted { a, b in
                    let order = ByteOrder.compare(keys[a], keys[b])
                    return order != 0 ? order < 0 : entries[start + a].row < entries[start + b].row
                }
                let run = order.map { entries[start + $0] }
                entries.replaceSubrange(start..<end, with: run)
            }
            start = end
        }
        rows = entries.map(\.row)
        masks = rows.map { mask(Int($0)) }
        rankStarts = (1...3).map { rank in entries.partitioningIndex { $0.rank >= rank } }
        ranks = []
        keyPrefixes = []
        isSorted = true
    }

    /// The rank of the match at `position` in `rows`.
    package func rank(at position: Int) -> Int {
        rankStarts.partitioningIndex { $0 > position }
    }

    /// The positions in `rows` within `stretch`, in order, of the matches whose masks have `required`.
    package func positions(in stretch: Range<Int>, having required: UInt64) -> [UInt32] {
        FollowingBytes.rows(masks[stretch], having: required)
    }

    /// The page of a query that narrows the scan whose matches `rows` are, judged by `judge`,
    /// and how many matches were seen (at least the page; all of them when the walk reached
    /// the end); nil when `rows` are not in order. `changed`: every row of the scan's scope
    /// changed since the scan, judged as it is now and never from the copy.
    package static func page(
        of rows: ScannedRows, changed: ScannedRows, judge: inout RowJudge,
        offset: Int, limit: Int
    ) throws -> (ids: [Int], seen: Int)? {
        let wanted = offset + limit
        guard wanted > 0, rows.order?.isSorted == true else { return nil }
        /// Matches seen whose place is not yet sure, first one on top; and those placed, in order.
        /// (A sorted array took most of "mur"'s walk at ten million books: the Murakami books
        /// among "mu"'s title matches came in key order of their titles, not of their places for
        /// "mur", each inserted amid the others.)
        var unsure = PlaceHeap()
        var placed: [LeadingMatches.Place] = []
        var changedIDs = Set<Int>()
        try changed.forEach { id, key, title, author, other, _ in
            changedIDs.insert(id)
            if let rank = judge.rank(title: title, author: author, other: other) {
                unsure.insert(LeadingMatches.Place(rank: rank, key: Array(key), id: id))
            }
        }
        var complete = true
        try rows.forEachInOrder(mayMatch: judge.words) { rowRank, id, key, title, author, other in
            if !changedIDs.contains(id), let rank = judge.rank(title: title, author: author, other: other) {
                unsure.insert(LeadingMatches.Place(rank: rank, key: Array(key), id: id))
            }
            // Every row still unread comes after this one, and so does its place now.
            while let next = unsure.first {
                let rowFirst =
                    rowRank != next.rank
                    ? rowRank < next.rank
                    : next.key.withUnsafeBufferPointer { ByteOrder.precedes(key, id, $0, next.id) }
                guard !rowFirst else { break }
                placed.append(unsure.removeFirst())
            }
            complete = placed.count < wanted
            return complete
        }
        let seen = placed.count + unsure.count
        // Read to its end, the walk has placed every match.
        if complete { while !unsure.isEmpty { placed.append(unsure.removeFirst()) } }
        return (placed.dropFirst(offset).prefix(limit).map(\.id), seen)
    }
}

/// Places in a binary heap, the first in result order on top.
private struct PlaceHeap {
    private var places: [LeadingMatches.Place] = []

    package var count: Int { places.count }
    package var isEmpty: Bool { places.isEmpty }
    package var first: LeadingMatches.Place? { places.first }

    package mutating func insert(_ place: LeadingMatches.Place) {
        places.append(place)
        var child = places.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard places[child].precedes(places[parent]) else { break }
            places.swapAt(child, parent)
            child = parent
        }
    }

    package mutating func removeFirst() -> LeadingMatches.Place {
        places.swapAt(0, places.count - 1)
        let first = places.removeLast()
        var parent = 0
        while true {
            let (left, right) = (2 * parent + 1, 2 * parent + 2)
            var least = parent
            if left < places.count && places[left].precedes(places[least]) { least = left }
            if right < places.count && places[right].precedes(places[least]) { least = right }
            guard least != parent else { return first }
            places.swapAt(parent, least)
            parent = least
        }
    }
}
