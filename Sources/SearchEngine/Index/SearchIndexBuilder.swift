/// Builds a `SearchIndexBase` from a source's books (`SearchSource`) in streaming passes over one
/// state of them (`SearchSource.readingEveryBook`), with no `String` per token and every final array allocated once at its
/// exact size. The transient peak is pass 1's provisional copy of the tokens (about one byte
/// per token), freed before the postings are allocated. The large arrays live where `memory`
/// says: in scratch files beside the catalog when the build runs for a remote.
///
/// 1. Every book in the source's fastest order (`everyBook`: SQLite's table in file order): the
///    distinct tokens and how often each occurs, and each book's tokens as provisional entries.
///    Tokens are then numbered in byte order and coded by frequency, which also gives the exact
///    size of the forward index.
/// 2. The ids in title order (`idsInTitleOrder`: SQLite's (scope, title_key, id) index, without
///    touching the table): the ids and the forward index, recoded from pass 1.
/// 3. Two passes over the forward index in memory: the size of each posting list, then the lists.
///
/// Why two reads and not one of every book in title order: SQLite would read its table in title
/// order with a random page read per book, where these two are sequential (`bookshelf-bench
/// search` builds at each size; docs/performance-log.md has the figures).
package struct SearchIndexBuilder {
    package let source: any SearchSource
    /// Where the large arrays go (`BuildMemory`).
    package var memory = BuildMemory.anonymous
    /// Asked now and then, to stop a build nobody waits for any more.
    package var isCancelled: () -> Bool = { false }
    /// Called at the same moments, and by SQLite every millisecond or so of its work, to let
    /// the searches a user waits on run alone (`ForegroundWork`).
    package var givingWay: () -> Void = {}

    package func build() throws -> SearchIndexBase {
        try source.pausing(givingWay) {
            try source.readingEveryBook { try build(sequence: try source.latestChange()) }
        }
    }

    /// Gives way to searches, then stops if the build is cancelled.
    private func checkpoint() throws {
        givingWay()
        if isCancelled() { throw CancellationError() }
    }

    private func build(sequence: Int) throws -> SearchIndexBase {
        let census = try source.census()
        let (count, smallestID, largestID) = (census.count, census.smallestID, census.largestID)
        // Values read from the file can be anything: a damaged one can count rows that are not
        // there, or give ids outside the range its own min and max said.
        guard count >= 0, smallestID >= 0, largestID >= smallestID, count == 0 || count - 1 <= largestID - smallestID
        else {
            throw CatalogDamage("the books' count and id range disagree")
        }
        /// An id read in a pass, as an offset from the smallest: within the range, or damage.
        func offset(_ id: Int) throws -> UInt64 {
            guard id >= smallestID, id <= largestID else {
                throw CatalogDamage("book id \(id) lies outside \(smallestID)...\(largestID)")
            }
            return UInt64(id - smallestID)
        }

        // Pass 1, in file order (sequential reads): the vocabulary and how often each token
        // occurs, and each book's tokens as vocabulary entries, kept until pass 2 recodes them.
        var table = TokenTable()
        var countBytes = 0
        // The entry of the other fields' separator, if any book has two of them.
        var separatorEntry: Int?
        // Rows come in rowid (= id) order: these become the base's ids in id order.
        let rowIDs = PackedIntegerWriter(count: count, maximum: UInt64(largestID - smallestID), in: memory)
        // Pass 1's copy, freed before the postings are allocated.
        var rowStartMemory: OwnedIndexMemory? = memory.zeroed(byteCount: (count + 1) * MemoryLayout<UInt32>.stride)
        let rowStart = rowStartMemory!.bytes.bindMemory(to: UInt32.self)
        var rowBytes: GrowingBytes? = memory.growingBytes(capacity: count * 8)
        var row = 0
        do {
            try source.everyBook(after: nil, holding: []) { book in
                guard row < count else { throw SearchIndexBuildError.changedDuringBuild }
                let id = try offset(book.id)
                // The binary search of pass 2 needs them in order; rowid order is, when intact.
                guard row == 0 || id > rowIDs[row - 1] else {
                    throw CatalogDamage("the table's rows are out of id order")
                }
                rowIDs[row] = id
                let (title, author) = (book.titleTerms, book.authorTerms)
                let titleTokens = UInt32(clamping: TokenTable.tokenCount(title))
                let authorTokens = UInt32(clamping: TokenTable.tokenCount(author))
                countBytes += VarInt.length(titleTokens) + VarInt.length(authorTokens)
                rowBytes!.append(titleTokens)
                rowBytes!.append(authorTokens)
                for text in [title, author] {
                    TokenTable.forEachToken(text) { token in
                        rowBytes!.append(UInt32(table.count(token)))
                    }
                }
                TokenTable.forEachToken(book.otherTerms) { token in
                    let entry = table.count(token)
                    if token.count == 1 && token[0] == BookText.fieldSeparatorByte { separatorEntry = entry }
                    rowBytes!.append(UInt32(entry))
                }
                row += 1
                rowStart[row] = UInt32(rowBytes!.count)
                if row & (SearchTuning.buildCheckpointRows - 1) == 0 { try checkpoint() }
            }
        }
        guard row == count else { throw SearchIndexBuildError.changedDuringBuild }

        let size = table.size
        let byBytes = (0..<size).sorted { a, b in
            table.withToken(a) { x in table.withToken(b) { y in ByteOrder.compare(x, y) < 0 } }
        }
        var numberOfEntry = [UInt32](repeating: 0, count: size)
        var vocabularyBytes: [UInt8] = []
        vocabularyBytes.reserveCapacity(table.byteCount)
        var vocabularyStart: [UInt32] = [0]
        vocabularyStart.reserveCapacity(size + 1)
        for (number, entry) in byBytes.enumerated() {
            numberOfEntry[entry] = UInt32(number)
            table.withToken(entry) { vocabularyBytes.append(contentsOf: $0) }
            vocabularyStart.append(UInt32(vocabularyBytes.count))
        }
        let occurrences = table.occurrences
        table = TokenTable()
        let byFrequency = (0..<size).sorted {
            occurrences[$0] > occurrences[$1] || occurrences[$0] == occurrences[$1] && $0 < $1
        }
        var codeOfEntry = [UInt32](repeating: 0, count: size)
        var numberOfCode = [UInt32](repeating: 0, count: size)
        var forwardSize = countBytes
        for (code, entry) in byFrequency.enumerated() {
            codeOfEntry[entry] = UInt32(code)
            numberOfCode[code] = numberOfEntry[entry]
            forwardSize += Int(occurrences[entry]) * VarInt.length(UInt32(code))
        }

        // Pass 2, in result order from the covering index (no table reads): ids, and the
        // forward index recoded from pass 1's entries. Rows came in id order, so a book's row
        // is found by binary search over those ids.
        let bookStart = PackedIntegerWriter(count: count + 1, maximum: UInt64(forwardSize), in: memory)
        let ids = PackedIntegerWriter(count: count, maximum: UInt64(largestID - smallestID), in: memory)
        let ordinalOfRow = PackedIntegerWriter(count: count, maximum: UInt64(max(count - 1, 0)), in: memory)
        let (forward, bookBytes) = memory.array(of: UInt8.self, count: forwardSize)
        var ordinal = 0
        var written = 0
        // Each row once: a damaged title index can name one row twice and another never.
        var visited = [UInt64](repeating: 0, count: (count + 63) / 64)
        do {
            try rowBytes!.withUnsafeBufferPointer { rows in
                try source.idsInTitleOrder(offset: 0, limit: nil) { orderedID in
                    guard ordinal < count else { throw SearchIndexBuildError.changedDuringBuild }
                    let id = try offset(orderedID)
                    var low = 0, high = count
                    while low < high {
                        let middle = (low + high) / 2
                        if rowIDs[middle] < id { low = middle + 1 } else { high = middle }
                    }
                    guard low < count, rowIDs[low] == id else { throw SearchIndexBuildError.changedDuringBuild }
                    guard visited[low / 64] & (1 << (low % 64)) == 0 else {
                        throw CatalogDamage("the title index names book \(id) twice")
                    }
                    visited[low / 64] |= 1 << (low % 64)
                    ids[ordinal] = id
                    ordinalOfRow[low] = UInt64(ordinal)
                    bookStart[ordinal] = UInt64(written)
                    var offset = Int(rowStart[low])
                    let end = Int(rowStart[low + 1])
                    let titleTokens = VarInt.read(rows, at: &offset)
                    VarInt.write(titleTokens, to: forward, at: &written)
                    let authorTokens = VarInt.read(rows, at: &offset)
                    VarInt.write(authorTokens, to: forward, at: &written)
                    while offset < end {
                        let code = codeOfEntry[Int(VarInt.read(rows, at: &offset))]
                        VarInt.write(code, to: forward, at: &written)
                    }
                    ordinal += 1
                    if ordinal & (SearchTuning.buildCheckpointRows - 1) == 0 { try checkpoint() }
                }
            }
        }
        guard ordinal == count, written == forwardSize else { throw SearchIndexBuildError.changedDuringBuild }
        bookStart[count] = UInt64(written)
        // Free pass 1's copy before the postings are allocated.
        rowBytes = nil
        rowStartMemory = nil

        // Pass 3: postings from the forward index.
        let (postingBytes, postingStart, postingsBefore) = try postings(
            count: count, size: size, bookBytes: bookBytes,
            bookStart: bookStart.packed, numberOfCode: numberOfCode,
            separator: separatorEntry.map { numberOfEntry[$0] })
        return SearchIndexBase(
            sequence: sequence, count: count, vocabularyBytes: IndexArray(copying: vocabularyBytes),
            vocabularyStart: IndexArray(copying: vocabularyStart),
            numberOfCode: IndexArray(copying: numberOfCode), bookBytes: bookBytes,
            bookStart: bookStart.packed, idBase: smallestID, ids: ids.packed, sortedIDs: rowIDs.packed,
            ordinalOfSorted: ordinalOfRow.packed, largestID: largestID,
            postingBytes: postingBytes, postingStart: IndexArray(copying: postingStart),
            postingsBefore: IndexArray(copying: postingsBefore))
    }

    /// Posting lists by token number: each book once per token, with the token's best place
    /// (0 first title token, 1 title, 2 author, 3 other fields). The other fields' separator
    /// (token number `separator`) gets none: it only breaks runs in the forward index.
    private func postings(
        count: Int, size: Int, bookBytes: IndexArray<UInt8>, bookStart: PackedIntegers,
        numberOfCode: [UInt32], separator: UInt32?
    ) throws -> (IndexArray<UInt8>, [UInt32], [UInt32]) {
        var sizes = [UInt32](repeating: 0, count: size + 1)
        var entries = [UInt32](repeating: 0, count: size + 1)
        var last = [Int32](repeating: 0, count: size)
        var places: [(number: UInt32, place: UInt32)] = []
        func forEachBook(_ body: (Int) -> Void) throws {
            try bookBytes.withUnsafeBufferPointer { bytes in
                for ordinal in 0..<count {
                    if ordinal & (SearchTuning.buildCheckpointBooks - 1) == 0 { try checkpoint() }
                    places.removeAll(keepingCapacity: true)
                    var offset = Int(bookStart[ordinal])
                    let end = Int(bookStart[ordinal + 1])
                    let titleCount = Int(VarInt.read(bytes, at: &offset))
                    let authorEnd = titleCount + Int(VarInt.read(bytes, at: &offset))
                    var position = 0
                    while offset < end {
                        let number = numberOfCode[Int(VarInt.read(bytes, at: &offset))]
                        let place: UInt32 =
                            position == 0 && titleCount > 0
                            ? 0 : position < titleCount ? 1 : position < authorEnd ? 2 : 3
                        position += 1
                        if number == separator { continue }
                        if let seen = places.firstIndex(where: { $0.number == number }) {
                            places[seen].place = min(places[seen].place, place)
                        } else {
                            places.append((number, place))
                        }
                    }
                    body(ordinal)
                }
            }
        }
        try forEachBook { ordinal in
            for (number, place) in places {
                let gap = UInt32(ordinal) - UInt32(last[Int(number)])
                sizes[Int(number) + 1] += UInt32(VarInt.length(gap << 2 | place))
                entries[Int(number) + 1] += 1
                last[Int(number)] = Int32(ordinal)
            }
        }
        try checkpoint()
        for index in 0..<size {
            sizes[index + 1] += sizes[index]
            entries[index + 1] += entries[index]
        }
        var cursor = sizes
        for index in 0..<size { last[index] = 0 }
        let (output, postingBytes) = memory.array(of: UInt8.self, count: Int(sizes[size]))
        do {
            try forEachBook { ordinal in
                for (number, place) in places {
                    let gap = UInt32(ordinal) - UInt32(last[Int(number)])
                    var offset = Int(cursor[Int(number)])
                    VarInt.write(gap << 2 | place, to: output, at: &offset)
                    cursor[Int(number)] = UInt32(offset)
                    last[Int(number)] = Int32(ordinal)
                }
            }
        }
        return (postingBytes, sizes, entries)
    }
}

/// The rows differed between the two passes, or from the count that came before them: inside
/// one read transaction only a damaged file does that, so it is `CatalogDamage`.
package enum SearchIndexBuildError {
    package static var changedDuringBuild: CatalogDamage {
        CatalogDamage("the rows differ from their count, or between two scans")
    }
}

/// Distinct tokens as bytes in one buffer, with an open-addressing hash table over them and
/// how often each occurs. Tokens are separated by single spaces in the derived columns.
package struct TokenTable {
    private var bytes: [UInt8] = []
    private var starts: [UInt32] = [0]
    package private(set) var occurrences: [UInt32] = []
    private var slots = [Int32](repeating: -1, count: 1 << 12)

    package var size: Int { occurrences.count }
    package var byteCount: Int { bytes.count }

    package func withToken<T>(_ entry: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        bytes.withUnsafeBufferPointer {
            body(UnsafeBufferPointer(rebasing: $0[Int(starts[entry])..<Int(starts[entry + 1])]))
        }
    }

    /// Counts one occurrence of `token`; answers its entry.
    package mutating func count(_ token: UnsafeBufferPointer<UInt8>) -> Int {
        let entry = entry(token)
        occurrences[entry] += 1
        return entry
    }

    private mutating func entry(_ token: UnsafeBufferPointer<UInt8>) -> Int {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: TokenTable.hash(token)) & mask
        while true {
            let entry = Int(slots[slot])
            if entry < 0 { break }
            if withToken(entry, { $0.elementsEqual(token) }) { return entry }
            slot = (slot + 1) & mask
        }
        let entry = occurrences.count
        bytes.append(contentsOf: token)
        starts.append(UInt32(bytes.count))
        occurrences.append(0)
        slots[slot] = Int32(entry)
        if occurrences.count * 2 > slots.count { grow() }
        return entry
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        let mask = slots.count - 1
        for entry in 0..<occurrences.count {
            var slot = withToken(entry) { Int(truncatingIfNeeded: TokenTable.hash($0)) } & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(entry)
        }
    }

    private static func hash(_ token: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in token { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash ^ (hash >> 29)
    }

    package static func forEachToken(
        _ text: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void
    )
        rethrows
    {
        var start = 0
        for index in 0...text.count where index == text.count || text[index] == 0x20 {
            if index > start { try body(UnsafeBufferPointer(rebasing: text[start..<index])) }
            start = index + 1
        }
    }

    package static func tokenCount(_ text: UnsafeBufferPointer<UInt8>) -> Int {
        var tokens = 0
        forEachToken(text) { _ in tokens += 1 }
        return tokens
    }
}
