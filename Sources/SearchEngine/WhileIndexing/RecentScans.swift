/// The matching rows of the last few scans of the books table, kept while the search index is
/// being built. Typing narrows a query ("h", "hi", "his", "his o"), and every book the longer
/// query matches is among those the shorter one matched: it is answered by judging those rows
/// again, and the rows changed since, instead of reading the whole table.
///
/// Only the rows are kept, not the answer: the longer query is judged from scratch on them
/// (`RowJudge`), so its ranks, order and total are what a whole scan would give. A
/// scan whose matches would pass the budget keeps nothing (a first letter at ten million books),
/// and a scan of the whole table drops what was kept: none of it could answer that query.
/// Books are never deleted, so the rows changed since a scan (`change_seq` above its
/// sequence) are everything that can differ from what it read.
package final class RecentScans {
    package struct Scan {
        package let words: [QueryWord]
        /// The catalog's latest `change_seq` when the rows were read.
        package let sequence: Int
        package let rows: ScannedRows
        /// The first of them in result order, or all, for a narrower query's page (`LeadingMatches`).
        package var leading = FirstMatches()

        /// What its rows and first matches take.
        package var byteCount: Int { rows.byteCount + leading.byteCount }
    }

    /// Oldest first.
    private var scans: [Scan] = []
    /// The rows of the scope that whole-table scans have read so far (`BooksCopy`).
    package var copy: BooksCopy?
    /// Where a copy's scratch file goes.
    package let memory: BuildMemory
    /// A scan of at most this many matches keeps them all in order (`LeadingMatches`).
    package let wholeMatchesLimit: Int

    package init(memory: BuildMemory, keepingWholeMatchesUpTo wholeMatchesLimit: Int = SearchTuning.wholeMatches) {
        self.memory = memory
        self.wholeMatchesLimit = wholeMatchesLimit
    }

    /// The kept scan with the fewest rows among those holding every match of `words` as of
    /// `sequence` (give or take the rows changed since).
    package func narrowest(holdingMatchesOf words: [QueryWord], at sequence: Int) -> Scan? {
        scans.filter { $0.sequence <= sequence && QueryWord.narrows(words, $0.words) }
            .min { $0.rows.count < $1.rows.count }
    }

    /// Whether reading the whole copy beats judging `scan`'s rows. A kept row is read where it
    /// lies in the copy, mostly a cache miss once the rows are many, while the copy is read in
    /// order and steps over the rows whose token starts cannot match: at a million books,
    /// judging a kept scan of more than an eighth of the rows ("m" for "mu") took longer than
    /// reading the copy (`keys --count 1000000 --no-index`).
    package func copyIsQuicker(than scan: Scan) -> Bool {
        guard let copy, copy.isComplete else { return false }
        return scan.rows.count > SearchTuning.fewKeptRows
            && scan.rows.count * SearchTuning.keptScanShareOfCopy > copy.count
    }

    /// What the kept scans take.
    package var byteCount: Int { scans.reduce(0) { $0 + $1.byteCount } }

    /// Keeps a scan's rows, dropping the oldest scans while all would pass the budget.
    package func keep(_ scan: Scan) {
        scans.append(scan)
        var total = byteCount
        while total > SearchTuning.keptScansBytes, let oldest = scans.first {
            total -= oldest.byteCount
            scans.removeFirst()
        }
    }

    /// Before a scan of the whole table or its copy: none of the kept scans could answer.
    package func removeKeptScans() { scans.removeAll() }

    /// Once the index answers.
    package func removeAll() {
        scans.removeAll()
        copy = nil
    }
}

/// Rows as a scan read them (id, title key, title terms, author terms, other terms): their bytes in one
/// buffer, or where they are in the table's copy (`BooksCopy`) when they came from it. A key
/// that is the title terms over again (most are: a title of plain words) is not kept twice.
package struct ScannedRows {
    package private(set) var ids: [Int] = []
    private var bytes: [UInt8] = []
    /// Per row, where its title key, title terms, author terms and other terms end in `bytes`; a key end
    /// with `keyIsTitle` set means the key is the title terms.
    private var ends: [UInt32] = []
    private static let keyIsTitle: UInt32 = 1 << 31
    private static let endsPerRow = 4
    /// Rows that are in `copy` (their ids are the copy's), where, and each one's mask of the
    /// bytes that follow the scan's last word in its tokens (`following`).
    package private(set) var copy: BooksCopy?
    private var copiedAt: [BooksCopy.Place] = []
    private var copiedMasks: [UInt64] = []
    package let following: FollowingBytes
    /// The copied rows in result order, sorted when a broad scan is kept (`MatchOrder`); nil
    /// once a row not in the copy is recorded, or when the order is not needed.
    package private(set) var order: MatchOrder? = MatchOrder()

    package var count: Int { ids.count + copiedAt.count }
    /// What the arrays hold (the room they keep for growing is mostly never touched, so not
    /// resident). Kept as rows come: a search asks after every row it records.
    package private(set) var byteCount = 0

    /// Rows matched by `words`, to be narrowed by the queries typed after them.
    package init(matching words: [QueryWord] = []) {
        following = FollowingBytes(narrowing: words)
    }

    /// Appends a row that is in `copy` at `place`, by its place and its mask (`following`)
    /// only, with its rank and its key's first eight bytes (`ByteOrder.prefix`) for `order`.
    package mutating func append(
        in copy: BooksCopy, at place: BooksCopy.Place, mask: UInt64, rank: Int, keyPrefix: UInt64
    ) {
        assert(self.copy.map { $0 === copy } ?? true, "one copy per set of rows")
        if self.copy == nil { self.copy = copy }
        copiedAt.append(place)
        copiedMasks.append(mask)
        byteCount += MemoryLayout<BooksCopy.Place>.stride + MemoryLayout<UInt64>.stride
        guard copiedAt.count <= SearchTuning.orderedMatches else { return dropOrder() }
        let orderBytes = order?.byteCount ?? 0
        order?.append(rank: rank, keyPrefix: keyPrefix)
        byteCount += (order?.byteCount ?? 0) - orderBytes
    }

    /// Puts the rows in result order (`MatchOrder`), when they are all in the copy.
    package mutating func sortOrder() {
        guard ids.isEmpty, let copy, var sorted = order else { return dropOrder() }
        byteCount -= sorted.byteCount
        copy.withTexts { texts in sorted.sort(key: { texts(copiedAt[$0]).key }, mask: { copiedMasks[$0] }) }
        order = sorted
        byteCount += sorted.byteCount
    }

    /// Forgets the rows' positions: their order is not needed, or not known for every row.
    package mutating func dropOrder() {
        byteCount -= order?.byteCount ?? 0
        order = nil
    }

    package mutating func append(
        id: Int, key: UnsafeBufferPointer<UInt8>, title: UnsafeBufferPointer<UInt8>,
        author: UnsafeBufferPointer<UInt8>, other: UnsafeBufferPointer<UInt8>
    ) {
        let bytesBefore = bytes.count
        ids.append(id)
        if ByteOrder.compare(key, title) == 0 {
            ends.append(UInt32(bytes.count) | Self.keyIsTitle)
        } else {
            bytes.append(contentsOf: key)
            ends.append(UInt32(bytes.count))
        }
        bytes.append(contentsOf: title)
        ends.append(UInt32(bytes.count))
        bytes.append(contentsOf: author)
        ends.append(UInt32(bytes.count))
        bytes.append(contentsOf: other)
        ends.append(UInt32(bytes.count))
        byteCount +=
            bytes.count - bytesBefore + MemoryLayout<Int>.stride + Self.endsPerRow * MemoryLayout<UInt32>.stride
        // Only copied rows are walked in result order.
        dropOrder()
    }

    /// Every row, with its place in `copy` for those that are there; of those, only the ones
    /// that `words` may match by their masks (`following`) and token starts (the copy's column
    /// of them), which say so without reading them. Throws `CancellationError` when the task is
    /// cancelled on the way (`BooksCopy`).
    package func forEach(
        mayMatch words: [QueryWord] = [],
        _ body: (
            _ id: Int, _ key: UnsafeBufferPointer<UInt8>, _ title: UnsafeBufferPointer<UInt8>,
            _ author: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>, _ place: BooksCopy.Place?
        ) throws -> Void
    ) throws {
        let mayMatch = FollowingBytes.rows(copiedMasks[...], having: following.required(by: words)).lazy.map(Int.init)
        try copy?.forEach(at: copiedAt, numbered: mayMatch, admitting: TokenStarts(requiredByAll: words)) {
            row, id, texts in
            try body(id, texts.key, texts.title, texts.author, texts.other, copiedAt[row])
            return true
        }
        try bytes.withUnsafeBufferPointer { all in
            var start = 0
            for (row, id) in ids.enumerated() {
                let first = Self.endsPerRow * row
                let keyEnd = Int(ends[first] & ~Self.keyIsTitle)
                let (titleEnd, authorEnd, otherEnd) = (Int(ends[first + 1]), Int(ends[first + 2]), Int(ends[first + 3]))
                let title = UnsafeBufferPointer(rebasing: all[keyEnd..<titleEnd])
                let key =
                    ends[first] & Self.keyIsTitle != 0 ? title : UnsafeBufferPointer(rebasing: all[start..<keyEnd])
                try body(
                    id, key, title, UnsafeBufferPointer(rebasing: all[titleEnd..<authorEnd]),
                    UnsafeBufferPointer(rebasing: all[authorEnd..<otherEnd]), nil)
                start = otherEnd
            }
        }
    }

    /// The rows in result order (`order`, sorted) that `words` may match (as `forEach` tells),
    /// with their rank for the scan's query and their ids, until `body` returns false.
    package func forEachInOrder(
        mayMatch words: [QueryWord],
        _ body: (
            _ rank: Int, _ id: Int, _ key: UnsafeBufferPointer<UInt8>,
            _ title: UnsafeBufferPointer<UInt8>, _ author: UnsafeBufferPointer<UInt8>,
            _ other: UnsafeBufferPointer<UInt8>
        ) throws -> Bool
    ) throws {
        guard let copy, let order else { return }
        precondition(order.isSorted && ids.isEmpty, "a walk in result order of rows not all in order")
        let places = order.rows.lazy.map { copiedAt[Int($0)] }
        let (required, starts) = (following.required(by: words), TokenStarts(requiredByAll: words))
        // A stretch at a time: a walk that stops at its page ("mur" after "mu") read a third
        // of the 473,000 masks, not all of them.
        var (start, goesOn) = (0, true)
        while goesOn && start < order.rows.count {
            let stretch = start..<min(start + SearchTuning.orderedWalkStretch, order.rows.count)
            let positions = order.positions(in: stretch, having: required)
            try copy.forEach(at: places, numbered: positions.lazy.map(Int.init), admitting: starts) {
                position, id, texts in
                goesOn = try body(order.rank(at: position), id, texts.key, texts.title, texts.author, texts.other)
                return goesOn
            }
            start = stretch.upperBound
        }
    }
}
