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
///
/// Books matched in their titles with the same title key and title terms (a thousand books
/// titled "War", by different authors) are kept four at a time: the rest of such a group
/// follows its last kept row, and the group's title alone says whether a narrower query
/// matches them all in their titles (then their places are unknown, and the page is not taken
/// from here) or at most by author, at the last rank, after the group's kept rows. So "war a"
/// after "war" looks past the books titled "War" alone to "War and Peace". Books matched by
/// author are all kept: whether the rest of a group would match a narrower query again
/// depends on their authors, and an author's books are what such queries narrow to.
struct LeadingMatches {
    /// How many first matches a scan keeps.
    static let capacity = 1_024
    /// How many books of one group (a rank before the last, title key, title terms) are kept.
    static let groupLimit = 4

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
        /// More books of this row's group follow it in the scan, not kept.
        var groupContinues = false

        /// Whether both are matched in their titles, at one rank, with the same key and title terms.
        func isInGroup(of other: Row) -> Bool {
            place.rank < 2 && place.rank == other.place.rank && place.key == other.place.key && title == other.title
        }
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

    /// The first `capacity` matches offered, in result order, at most `groupLimit` of a group.
    var ordered: [Row] {
        var rows: [Row] = []
        var inGroup = 0
        for row in kept.sorted(by: { $0.place.precedes($1.place) }) {
            inGroup = rows.last.map(row.isInGroup) == true ? inGroup + 1 : 1
            if inGroup > Self.groupLimit {
                // The group's last kept row says more follow (a mark an earlier trim set stays).
                rows[rows.count - 1].groupContinues = true
            } else {
                rows.append(row)
            }
        }
        return Array(rows.prefix(Self.capacity))
    }

    private mutating func trim() {
        kept = ordered
        // Groups cut short may leave room: then any later match may still be among the first.
        guard kept.count == Self.capacity, let last = kept.last else { return }
        worst = last
        worstPrefix = (last.place.rank, last.place.key.withUnsafeBufferPointer(ByteOrder.prefix))
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
        /// The places the rest of the groups passed so far can take are after this one.
        var ceiling: Place?
        for row in leading {
            if !changedIDs.contains(row.place.id) {
                let rank = row.title.withUnsafeBufferPointer { title in
                    row.author.withUnsafeBufferPointer { author in judge.rank(title: title, author: author) }
                }
                if let rank { see(Place(rank: rank, key: row.place.key, id: row.place.id)) }
            }
            if row.groupContinues {
                // The group's other books have this title: matched in it, their places are not
                // known; otherwise they come at the last rank, after this book's id.
                let inTitle = row.title.withUnsafeBufferPointer { judge.rank(title: $0, author: UnsafeBufferPointer(start: nil, count: 0)) }
                guard inTitle == nil else { return nil }
                let after = Place(rank: 2, key: row.place.key, id: row.place.id)
                if ceiling.map(after.precedes) ?? true { ceiling = after }
            }
            // Whatever is still unread comes after `row`'s place (see the type's comment), and
            // after the ceiling.
            let sure = unsure.prefix { !row.place.precedes($0) && !(ceiling?.precedes($0) ?? false) }
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
