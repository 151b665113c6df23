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
/// from here) or at most by author or another field, at rank 2 or 3, after the group's kept rows. So "war a"
/// after "war" looks past the books titled "War" alone to "War and Peace". Books matched by
/// author are all kept: whether the rest of a group would match a narrower query again
/// depends on their authors, and an author's books are what such queries narrow to.
///
/// A scan of a few tens of thousands of matches keeps them all, in order (`FirstMatches.isWhole`):
/// "mur" after "mu", where "mu"'s first matches are titles beginning "mu" and "mur"'s page is
/// Murakami's books, judges the titles with a word beginning "mu" (a quarter of the 47,355 rows
/// at a million books) and then a page of his books, instead of every row. The rows' texts
/// lie in one buffer, read in order.
package struct LeadingMatches {

    /// A match's place in result order: rank, then key bytes, then id.
    package struct Place {
        package let rank: Int
        package let key: [UInt8]
        package let id: Int

        package func precedes(_ other: Place) -> Bool {
            rank != other.rank ? rank < other.rank : ByteOrder.precedes(key, id, other.key, other.id)
        }
    }

    /// A kept match: its place, and where its key and terms are in the texts.
    package struct Row {
        package let id: Int
        /// The key's first eight bytes (`ByteOrder.prefix`): they settle most comparisons.
        package let keyPrefix: UInt64
        package let keyStart: UInt32
        package let titleStart: UInt32
        package let authorStart: UInt32
        package let otherStart: UInt32
        package let end: UInt32
        package let rank: UInt8
        /// The key is the title terms over again (most are): not kept twice.
        package let keyIsTitle: Bool
        /// More books of this row's group follow it in the scan, not kept.
        package var groupContinues = false
    }

    private let wholeLimit: Int
    private var texts: [UInt8] = []
    private var kept: [Row] = []
    /// Once `kept` was trimmed to the first `capacity`, no match after the last can be among them.
    private var worst: Row?
    private var wasTrimmed = false

    /// - Parameter wholeLimit: a scan of at most this many matches keeps them all.
    package init(keepingWholeUpTo wholeLimit: Int) { self.wholeLimit = wholeLimit }

    /// Offers a match; its texts are read only when it may be among the first.
    package mutating func offer(
        rank: Int, id: Int, prefix: UInt64, key: () -> UnsafeBufferPointer<UInt8>,
        texts: () -> (
            title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>, other: UnsafeBufferPointer<UInt8>
        )
    ) {
        if let worst {
            if (rank, prefix) > (Int(worst.rank), worst.keyPrefix) { return }
            if (rank, prefix) == (Int(worst.rank), worst.keyPrefix),
                !self.texts.withUnsafeBufferPointer({
                    ByteOrder.precedes(key(), id, Self.key(of: worst, in: $0), worst.id)
                })
            {
                return
            }
        }
        let (title, author, other) = texts()
        append(rank: rank, id: id, keyPrefix: prefix, key: key(), title: title, author: author, other: other)
        if kept.count >= max(2 * SearchTuning.leadingMatches, wholeLimit + 1) { trim() }
    }

    private mutating func append(
        rank: Int, id: Int, keyPrefix: UInt64, key: UnsafeBufferPointer<UInt8>,
        title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>, other: UnsafeBufferPointer<UInt8>,
        groupContinues: Bool = false
    ) {
        let keyIsTitle = ByteOrder.compare(key, title) == 0
        let keyStart = UInt32(texts.count)
        if !keyIsTitle { texts.append(contentsOf: key) }
        let titleStart = UInt32(texts.count)
        texts.append(contentsOf: title)
        let authorStart = UInt32(texts.count)
        texts.append(contentsOf: author)
        let otherStart = UInt32(texts.count)
        texts.append(contentsOf: other)
        kept.append(
            Row(
                id: id, keyPrefix: keyPrefix, keyStart: keyStart, titleStart: titleStart, authorStart: authorStart,
                otherStart: otherStart, end: UInt32(texts.count), rank: UInt8(rank), keyIsTitle: keyIsTitle,
                groupContinues: groupContinues))
    }

    /// The matches offered, in result order: all of them when they were at most `wholeLimit`,
    /// otherwise the first `capacity`, at most `groupLimit` of a group.
    package var ordered: FirstMatches {
        let isWhole = !wasTrimmed && kept.count <= wholeLimit
        return texts.withUnsafeBufferPointer { all in
            let order = kept.indices.sorted { Self.precedes(kept[$0], kept[$1], in: all) }
            // All of them: the same texts, the rows in order.
            if isWhole { return FirstMatches(texts: texts, rows: order.map { kept[$0] }, isWhole: true) }
            var first = LeadingMatches(keepingWholeUpTo: wholeLimit)
            var inGroup = 0
            var previous: Row?
            for row in order.lazy.map({ kept[$0] }) {
                inGroup = previous.map { Self.isInGroup(row, $0, in: all) } == true ? inGroup + 1 : 1
                previous = row
                if inGroup > SearchTuning.leadingGroupBooks {
                    // The group's last kept row says more follow (a mark an earlier trim set stays).
                    first.kept[first.kept.count - 1].groupContinues = true
                } else if first.kept.count == SearchTuning.leadingMatches {
                    break
                } else {
                    first.append(
                        rank: Int(row.rank), id: row.id, keyPrefix: row.keyPrefix, key: Self.key(of: row, in: all),
                        title: Self.title(of: row, in: all), author: Self.author(of: row, in: all),
                        other: Self.other(of: row, in: all), groupContinues: row.groupContinues)
                }
            }
            return FirstMatches(texts: first.texts, rows: first.kept, isWhole: false)
        }
    }

    private mutating func trim() {
        wasTrimmed = true
        let first = ordered
        (texts, kept) = (first.texts, first.rows)
        // Groups cut short may leave room: then any later match may still be among the first.
        worst = kept.count == SearchTuning.leadingMatches ? kept.last : nil
    }

    private static func precedes(_ a: Row, _ b: Row, in all: UnsafeBufferPointer<UInt8>) -> Bool {
        if a.rank != b.rank { return a.rank < b.rank }
        if a.keyPrefix != b.keyPrefix { return a.keyPrefix < b.keyPrefix }
        return ByteOrder.precedes(key(of: a, in: all), a.id, key(of: b, in: all), b.id)
    }

    /// Whether both are matched in their titles, at one rank, with the same key and title terms.
    private static func isInGroup(_ a: Row, _ b: Row, in all: UnsafeBufferPointer<UInt8>) -> Bool {
        a.rank < 2 && a.rank == b.rank && a.keyPrefix == b.keyPrefix
            && ByteOrder.compare(key(of: a, in: all), key(of: b, in: all)) == 0
            && ByteOrder.compare(title(of: a, in: all), title(of: b, in: all)) == 0
    }

    fileprivate static func key(of row: Row, in all: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        row.keyIsTitle
            ? title(of: row, in: all) : UnsafeBufferPointer(rebasing: all[Int(row.keyStart)..<Int(row.titleStart)])
    }

    fileprivate static func title(of row: Row, in all: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: all[Int(row.titleStart)..<Int(row.authorStart)])
    }

    fileprivate static func author(of row: Row, in all: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: all[Int(row.authorStart)..<Int(row.otherStart)])
    }

    fileprivate static func other(of row: Row, in all: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: all[Int(row.otherStart)..<Int(row.end)])
    }

    /// The page of a query that narrows the query `leading` are the first matches of, judged
    /// by `judge`, or nil when it is not among them. `changed`: every row of the scan's scope
    /// changed since the scan, judged as it is now and never from `leading`.
    /// - Returns: the page's ids, and how many matches were seen (at least the page; all of
    ///   them when `leading` is whole and was read to its end).
    package static func page(
        among leading: FirstMatches, changed: ScannedRows, judge: inout RowJudge,
        offset: Int, limit: Int
    ) throws -> (ids: [Int], seen: Int)? {
        let wanted = offset + limit
        guard wanted > 0 else { return nil }
        /// Matches seen whose new place is not yet sure, in result order; and those placed.
        var unsure: [Place] = []
        var placed: [Place] = []
        func see(_ place: Place) {
            unsure.insert(place, at: unsure.partitioningIndex { !$0.precedes(place) })
        }
        var changedIDs = Set<Int>()
        try changed.forEach { id, key, title, author, other, _ in
            changedIDs.insert(id)
            if let rank = judge.rank(title: title, author: author, other: other) {
                see(Place(rank: rank, key: Array(key), id: id))
            }
        }
        return leading.texts.withUnsafeBufferPointer { all in
            /// The places the rest of the groups passed so far can take are after this one.
            var ceiling: Place?
            for row in leading.rows {
                let key = Self.key(of: row, in: all)
                let title = Self.title(of: row, in: all)
                if !changedIDs.contains(row.id),
                    let rank = judge.rank(
                        title: title, author: Self.author(of: row, in: all), other: Self.other(of: row, in: all))
                {
                    see(Place(rank: rank, key: Array(key), id: row.id))
                }
                if row.groupContinues {
                    // The group's other books have this title: matched in it, their places are not
                    // known; otherwise they come at most by author or another field, at rank 2 or
                    // 3, after this book's id: the ceiling at rank 2 is below both.
                    let none = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
                    guard judge.rank(title: title, author: none, other: none) == nil else { return nil }
                    let after = Place(rank: 2, key: Array(key), id: row.id)
                    if ceiling.map(after.precedes) ?? true { ceiling = after }
                }
                // Whatever is still unread comes after `row`'s place (see the type's comment), and
                // after the ceiling.
                let sure = unsure.prefix { place in
                    let rowFirst =
                        Int(row.rank) != place.rank
                        ? Int(row.rank) < place.rank
                        : place.key.withUnsafeBufferPointer { ByteOrder.precedes(key, row.id, $0, place.id) }
                    return !rowFirst && !(ceiling?.precedes(place) ?? false)
                }
                placed += sure
                unsure.removeFirst(sure.count)
                if placed.count >= wanted {
                    return (placed.dropFirst(offset).prefix(limit).map(\.id), placed.count + unsure.count)
                }
            }
            // Read to its end, a whole scan leaves nothing unread: every match is placed.
            guard leading.isWhole else { return nil }
            placed += unsure
            return (placed.dropFirst(offset).prefix(limit).map(\.id), placed.count)
        }
    }
}

/// A scan's first matches in result order (`LeadingMatches`), their texts in one buffer.
package struct FirstMatches {
    fileprivate(set) var texts: [UInt8] = []
    fileprivate(set) var rows: [LeadingMatches.Row] = []
    /// Every match of the scan is here, none cut from a group.
    fileprivate(set) var isWhole = false

    package var count: Int { rows.count }

    /// What they take.
    package var byteCount: Int { texts.count + rows.count * MemoryLayout<LeadingMatches.Row>.stride }

    /// A row's title terms, for tests.
    package func title(of row: LeadingMatches.Row) -> [UInt8] {
        texts.withUnsafeBufferPointer { Array(LeadingMatches.title(of: row, in: $0)) }
    }
}

extension Array {
    /// The index of the first element for which `isAfter` holds, all those before it failing it.
    package func partitioningIndex(where isAfter: (Element) -> Bool) -> Int {
        var (low, high) = (0, count)
        while low < high {
            let middle = (low + high) / 2
            if isAfter(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
