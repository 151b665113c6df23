import CMemoryAccess

/// Every row of a scope as whole-table scans read them (id, title key, title terms, author
/// terms, other terms), kept in a scratch file beside the catalog while the search index is built: a query
/// that narrows no kept scan (`RecentScans`), a new first letter above all, is judged on these
/// rows and the rows changed since, instead of reading the books table again. Its pages are the
/// page cache's, as the build's scratch files are, not the process's own memory.
///
/// Filled in id order by scans that may be cancelled (the next key replaced their search): the
/// next one resumes after the last id copied. Rows read later may be newer than `sequence`,
/// which is harmless: whoever uses the copy re-reads every row changed since `sequence` and
/// judges those instead of their copies.
package final class BooksCopy {
    /// The catalog's latest `change_seq` when the first row was read.
    package let sequence: Int
    /// Every row of the scope up to this id is in the copy.
    package private(set) var lastID: Int?
    /// True once a scan reached the end of the table.
    package private(set) var isComplete = false
    package private(set) var count = 0
    /// Every row's key and terms, one row after another.
    private let bytes: GrowingBytes
    /// What a search asks of a row before its text, in columns: a walk reads only the column
    /// it asks (16 bytes a row for a word's token starts), and the row's `Whereabouts` and
    /// bytes only when the row is admitted. Walks of the whole copy are memory-bound, so a walk
    /// reads as few bytes a row as it can (`keys --count 1000000 --no-index`, "日").
    private let starts: RowColumn<TokenStarts>
    private let letters: RowColumn<Letters>
    private let whereabouts: RowColumn<Whereabouts>

    /// A one-letter query's whole answer for a row (`LetterPlaces`), and the title key's first
    /// eight bytes (`ByteOrder.prefix`): most rows it matches are placed, or passed over, on
    /// these alone.
    package struct Letters: BitwiseCopyable {
        package let places: LetterPlaces
        package let keyPrefix: UInt64
    }

    /// A row's id, and where its bytes begin.
    package struct Whereabouts: BitwiseCopyable {
        package let id: Int
        package let offset: UInt32
    }

    /// Nil where no scratch file can be made: the copy is never the process's own memory.
    package init?(sequence: Int, memory: BuildMemory) {
        guard let bytes = memory.growingFileBytes(capacity: SearchTuning.copyFirstBytes),
            let starts = RowColumn<TokenStarts>(memory: memory),
            let letters = RowColumn<Letters>(memory: memory),
            let whereabouts = RowColumn<Whereabouts>(memory: memory)
        else { return nil }
        self.sequence = sequence
        self.bytes = bytes
        self.starts = starts
        self.letters = letters
        self.whereabouts = whereabouts
    }

    /// Where a row is: the offset of its bytes, and its number (where its columns' entries are).
    package struct Place {
        package let offset: UInt32
        package let row: UInt32
    }

    /// Appends a row whose id is above every id so far, and tells where it went; nil when the
    /// copy cannot take it (its files cannot grow, the copy passed 4 GiB) and must be given up.
    package func append(
        id: Int, key: UnsafeBufferPointer<UInt8>, title: UnsafeBufferPointer<UInt8>,
        author: UnsafeBufferPointer<UInt8>, other: UnsafeBufferPointer<UInt8>
    ) -> Place? {
        guard id > lastID ?? Int.min,
            bytes.count + 20 + key.count + title.count + author.count + other.count < Int(UInt32.max)
        else { return nil }
        let place = Place(offset: UInt32(bytes.count), row: UInt32(count))
        // A key that is the title terms over again (most are) is written as a 0.
        if ByteOrder.compare(key, title) == 0 {
            bytes.append(0)
        } else {
            bytes.append(UInt32(key.count) + 1)
            bytes.append(contentsOf: key)
        }
        bytes.append(UInt32(title.count))
        bytes.append(contentsOf: title)
        bytes.append(UInt32(author.count))
        bytes.append(contentsOf: author)
        bytes.append(UInt32(other.count))
        bytes.append(contentsOf: other)
        starts.append(TokenStarts(title: title, author: author, other: other))
        letters.append(
            Letters(
                places: LetterPlaces(title: title, author: author, other: other), keyPrefix: ByteOrder.prefix(key)))
        whereabouts.append(Whereabouts(id: id, offset: place.offset))
        lastID = id
        count += 1
        return bytes.isFull || starts.isFull || letters.isFull || whereabouts.isFull ? nil : place
    }

    package func complete() { isComplete = true }

    /// The rows whose token starts admit `required`, in id order, with their places.
    package func forEach(
        admitting required: TokenStarts,
        _ body: (
            _ id: Int, _ place: Place, _ key: UnsafeBufferPointer<UInt8>, _ title: UnsafeBufferPointer<UInt8>,
            _ author: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>
        ) throws -> Void
    ) throws {
        try withColumns { starts, whereabouts, all in
            for row in 0..<count {
                try Self.stopIfCancelled(row)
                guard starts[row].admits(required) else { continue }
                let (id, place) = Self.place(ofRow: row, whereabouts)
                let (key, title, author, other) = Self.texts(all, at: place)
                try body(id, place, key, title, author, other)
            }
        }
    }

    /// For a one-letter query, the letter numbered `letter` (`LetterPlaces`): the rows it
    /// matches, with their rank and key prefix, read from their `Letters` alone; `texts` reads
    /// a row's key and terms, when the prefix does not settle where it goes.
    package func forEach(
        matchingLetter letter: Int,
        _ body: (_ id: Int, _ place: Place, _ rank: Int, _ keyPrefix: UInt64, _ texts: () -> Texts) throws -> Void
    ) throws {
        try letters.withElements { letters in
            try whereabouts.withElements { whereabouts in
                try bytes.withUnsafeBufferPointer { all in
                    for row in 0..<count {
                        try Self.stopIfCancelled(row)
                        let found = letters[row]
                        guard let rank = found.places.rank(ofLetter: letter) else { continue }
                        let (id, place) = Self.place(ofRow: row, whereabouts)
                        try body(id, place, rank, found.keyPrefix) { Self.texts(all, at: place) }
                    }
                }
            }
        }
    }

    private static func place(ofRow row: Int, _ whereabouts: RowColumn<Whereabouts>.Elements) -> (id: Int, place: Place)
    {
        let found = whereabouts[row]
        return (found.id, Place(offset: found.offset, row: UInt32(row)))
    }

    /// The rows at `places` whose numbers `numbers` gives, in that order, whose token starts
    /// admit `required`, with their ids, until `body` returns false.
    package func forEach<Places: RandomAccessCollection<Place>, Numbers: Collection<Int>>(
        at places: Places, numbered numbers: Numbers,
        admitting required: TokenStarts,
        _ body: (_ number: Int, _ id: Int, _ texts: Texts) throws -> Bool
    ) throws
    where Places.Index == Int {
        try withColumns { starts, whereabouts, all in
            func index(ahead distance: Int) -> Numbers.Index {
                numbers.index(numbers.startIndex, offsetBy: distance, limitedBy: numbers.endIndex) ?? numbers.endIndex
            }
            // Two steps: a row's starts are asked for well ahead, and its bytes and id a
            // little ahead, once its starts (in the cache by then) admit it.
            var (startsAhead, bytesAhead) = (
                index(ahead: SearchTuning.copyReadAhead), index(ahead: SearchTuning.copyReadAhead / 2)
            )
            for (walked, number) in numbers.enumerated() {
                try Self.stopIfCancelled(walked)
                if startsAhead != numbers.endIndex {
                    starts.prefetch(Int(places[numbers[startsAhead]].row))
                    numbers.formIndex(after: &startsAhead)
                }
                if bytesAhead != numbers.endIndex {
                    let place = places[numbers[bytesAhead]]
                    if starts[Int(place.row)].admits(required) {
                        shim_prefetch(all.baseAddress! + Int(place.offset))
                        whereabouts.prefetch(Int(place.row))
                    }
                    numbers.formIndex(after: &bytesAhead)
                }
                let place = places[number]
                guard starts[Int(place.row)].admits(required) else { continue }
                guard try body(number, whereabouts[Int(place.row)].id, Self.texts(all, at: place)) else { return }
            }
        }
    }

    /// Every so many rows, a walk stops with `CancellationError` once its search was replaced
    /// by the next key: a walk of ten million rows (a count after its page) takes a second or
    /// more, and the next key's search would wait for it.
    private static func stopIfCancelled(_ row: Int) throws {
        if row & (SearchTuning.walkCancellationRows - 1) == 0 { try Task.checkCancellation() }
    }

    package typealias Texts = (
        key: UnsafeBufferPointer<UInt8>, title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>,
        other: UnsafeBufferPointer<UInt8>
    )

    /// The token starts and whereabouts columns, and the rows' bytes, read in place for as long as `body` runs.
    private func withColumns<T>(
        _ body: (
            RowColumn<TokenStarts>.Elements, RowColumn<Whereabouts>.Elements,
            UnsafeBufferPointer<UInt8>
        ) throws -> T
    ) rethrows -> T {
        try starts.withElements { starts in
            try whereabouts.withElements { whereabouts in
                try bytes.withUnsafeBufferPointer { try body(starts, whereabouts, $0) }
            }
        }
    }

    /// Reads rows' texts by their places, for as long as `body` runs.
    package func withTexts<T>(_ body: (_ texts: (Place) -> Texts) throws -> T) rethrows -> T {
        try bytes.withUnsafeBufferPointer { all in try body { Self.texts(all, at: $0) } }
    }

    /// A row's key, title terms, author terms and other terms: its bytes, each run after its length.
    private static func texts(_ all: UnsafeBufferPointer<UInt8>, at place: Place) -> Texts {
        var offset = Int(place.offset)
        func run(_ length: Int) -> UnsafeBufferPointer<UInt8> {
            defer { offset += length }
            return UnsafeBufferPointer(rebasing: all[offset..<offset + length])
        }
        let keyLength = Int(VarInt.read(all, at: &offset))
        let key = keyLength == 0 ? nil : run(keyLength - 1)
        let title = run(Int(VarInt.read(all, at: &offset)))
        let author = run(Int(VarInt.read(all, at: &offset)))
        let other = run(Int(VarInt.read(all, at: &offset)))
        return (key ?? title, title, author, other)
    }
}

/// One value per row of `BooksCopy`, one after another in a scratch file.
private final class RowColumn<Element: BitwiseCopyable> {
    private let bytes: GrowingBytes

    package init?(memory: BuildMemory) {
        guard let bytes = memory.growingFileBytes(capacity: SearchTuning.copyFirstBytes) else { return nil }
        self.bytes = bytes
    }

    package var isFull: Bool { bytes.isFull }

    package func append(_ element: Element) {
        withUnsafeBytes(of: element) { bytes.append(contentsOf: $0.bindMemory(to: UInt8.self)) }
    }

    /// The column's values, read in place.
    package struct Elements {
        fileprivate let raw: UnsafeRawBufferPointer

        /// Each is stored unpadded (`withUnsafeBytes(of:)` gives its size, not its stride), so read unaligned.
        package subscript(row: Int) -> Element {
            raw.loadUnaligned(fromByteOffset: row * MemoryLayout<Element>.size, as: Element.self)
        }

        package func prefetch(_ row: Int) { shim_prefetch(raw.baseAddress! + row * MemoryLayout<Element>.size) }
    }

    package func withElements<T>(_ body: (Elements) throws -> T) rethrows -> T {
        try bytes.withUnsafeBufferPointer { try body(Elements(raw: UnsafeRawBufferPointer($0))) }
    }
}
