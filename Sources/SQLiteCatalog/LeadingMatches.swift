/// The first matches of a scan's query in result order (rank, key bytes, id), with their
/// texts, kept beside the scan's rows (`RecentScans`): a query that narrows the scan's query
/// usually finds its own first page among them, without judging the scan's other rows.
///
/// Narrowing never lowers a book's rank: a book the longer query ranks first is one whose
/// title begins with its first word, and so with the shorter query's first word too; the
/// same holds for a title holding every word. So a book the scan had after a given leading
/// row, the longer query also has after that row's place. Walking the leading rows in order
/// and judging each, every match whose new place is not after the row just judged can be
/// placed for sure: nothing still unread can come before it. Once a page of them are placed,
/// that is the page, shown before its count (`TotalCount.counting`). Typing on in an author's
/// name ("mura" after "mur", 358,358 books at ten million) then judges a page of rows instead
/// of all of them.
struct LeadingMatches {
    /// How many first matches a scan keeps.
    static let capacity = 1_024

    /// A match's place in result order: rank, then key bytes, then id.
    struct Place {
        let rank: Int
        let key: [UInt8]
        let id: Int

        func precedes(_ other: Place) -> Bool {
            rank != other.rank ? rank < other.rank : ByteOrder.precedes(key, id, other.key, other.id)
        }
    }

    struct Row {
        let place: Place
        let title: [UInt8]
        let author: [UInt8]
    }

    private var kept: [Row] = []
    /// Once `kept` was trimmed, no match after this row can be among the first `capacity`;
    /// its rank and key prefix settle most comparisons.
    private var worst: Row?
    private var worstPrefix: (rank: Int, prefix: UInt64) = (.max, .max)

    /// Offers a match; its texts are read only when it may be among the first.
    mutating func offer(rank: Int, id: Int, prefix: UInt64, key: () -> UnsafeBufferPointer<UInt8>,
                        texts: () -> (title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>)) {
        if let worst {
            if (rank, prefix) > worstPrefix { return }
            if (rank, prefix) == worstPrefix, !worst.place.key.withUnsafeBufferPointer({ ByteOrder.precedes(key(), id, $0, worst.place.id) }) {
                return
            }
        }
        let (title, author) = texts()
        kept.append(Row(place: Place(rank: rank, key: Array(key()), id: id), title: Array(title), author: Array(author)))
        if kept.count >= 2 * Self.capacity { trim() }
    }

    /// The first `capacity` matches offered, in result order.
    var ordered: [Row] {
        Array(kept.sorted { $0.place.precedes($1.place) }.prefix(Self.capacity))
    }

    private mutating func trim() {
        kept = ordered
        worst = kept.last
        worstPrefix = (worst!.place.rank, worst!.place.key.withUnsafeBufferPointer(ByteOrder.prefix))
    }

    /// The page of a query that narrows the query `leading` are the first matches of, judged
    /// by `judge`, or nil when it is not among them. `changed`: every row of the scan's scope
    /// changed since the scan, judged as it is now and never from `leading`.
    /// - Returns: the page's ids, and how many matches were seen (at least the page).
    static func page(among leading: [Row], changed: ScannedRows, judge: inout UnindexedSearch.Judge,
                     offset: Int, limit: Int) throws -> (ids: [Int], seen: Int)? {
        let wanted = offset + limit
        guard wanted > 0 else { return nil }
        /// Matches seen whose new place is not yet sure, in result order; and those placed.
        var unsure: [Place] = []
        var placed: [Place] = []
        func see(_ place: Place) {
            unsure.insert(place, at: unsure.partitioningIndex { !$0.precedes(place) })
        }
        var changedIDs = Set<Int>()
        try changed.forEach { id, key, title, author, _ in
            changedIDs.insert(id)
            if let rank = judge.rank(title: title, author: author) { see(Place(rank: rank, key: Array(key), id: id)) }
        }
        for row in leading where !changedIDs.contains(row.place.id) {
            let rank = row.title.withUnsafeBufferPointer { title in
                row.author.withUnsafeBufferPointer { author in judge.rank(title: title, author: author) }
            }
            if let rank { see(Place(rank: rank, key: row.place.key, id: row.place.id)) }
            // Whatever is still unread comes after `row`'s place (see the type's comment).
            let sure = unsure.prefix { !row.place.precedes($0) }
            placed += sure
            unsure.removeFirst(sure.count)
            if placed.count >= wanted {
                return (placed.dropFirst(offset).prefix(limit).map(\.id), placed.count + unsure.count)
            }
        }
        return nil
    }
}

extension Array {
    /// The index of the first element for which `isAfter` holds, all those before it failing it.
    fileprivate func partitioningIndex(where isAfter: (Element) -> Bool) -> Int {
        var (low, high) = (0, count)
        while low < high {
            let middle = (low + high) / 2
            if isAfter(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
