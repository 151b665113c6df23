import CSQLite

/// Every row of a scope as whole-table scans read them (id, title key, title terms, author
/// terms), kept in a scratch file beside the catalog while the search index is built: a query
/// that narrows no kept scan (`RecentScans`), a new first letter above all, is judged on these
/// rows and the rows changed since, instead of reading the books table again. Its pages are the
/// page cache's, as the build's scratch files are, not the process's own memory.
///
/// Filled in id order by scans that may be cancelled (the next key replaced their search): the
/// next one resumes after the last id copied. Rows read later may be newer than `sequence`,
/// which is harmless: whoever uses the copy re-reads every row changed since `sequence` and
/// judges those instead of their copies.
final class BooksCopy {
    /// The catalog's latest `change_seq` when the first row was read.
    let sequence: Int
    /// Every row of the scope up to this id is in the copy.
    private(set) var lastID: Int?
    /// True once a scan reached the end of the table.
    private(set) var isComplete = false
    private(set) var count = 0
    private let bytes: GrowingBytes
    /// Each row's `Summary`, one after another.
    private let summaries: GrowingBytes

    /// What a search asks of a row before its text: whether its tokens may match at all, and
    /// a one-letter query's whole answer. A walk over the copy reads the summaries alone (48
    /// bytes a row) and a row's bytes only when its summary admits it.
    struct Summary {
        let starts: TokenStarts
        let letters: LetterPlaces
        /// The title key's first eight bytes (`ByteOrder.prefix`): most rows a one-letter query
        /// matches are placed, or passed over, on these alone.
        let keyPrefix: UInt64
        /// The row's bytes, to step over a row the search does not need.
        let length: UInt32
        /// The row's id, less the id of the row before (0 before the first).
        let idGap: UInt32
    }

    /// Nil where no scratch file can be made: the copy is never the process's own memory.
    init?(sequence: Int, memory: BuildMemory) {
        guard let bytes = memory.growingFileBytes(capacity: 16 << 20),
              let summaries = memory.growingFileBytes(capacity: 16 << 20) else { return nil }
        self.sequence = sequence
        self.bytes = bytes
        self.summaries = summaries
    }

    /// Where a row is: the offset of its bytes, and its number (where its summary is).
    struct Place {
        let offset: UInt32
        let row: UInt32
    }

    /// Appends a row whose id is above every id so far, and tells where it went; nil when the
    /// copy cannot take it (its file cannot grow, the id is too far from the last one, the copy
    /// passed 4 GiB) and must be given up.
    func append(id: Int, key: UnsafeBufferPointer<UInt8>, title: UnsafeBufferPointer<UInt8>,
                author: UnsafeBufferPointer<UInt8>) -> Place? {
        let gap = id - (lastID ?? 0)
        guard gap > 0, gap <= Int(UInt32.max), bytes.count + 15 + key.count + title.count + author.count < Int(UInt32.max)
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
        let summary = Summary(starts: TokenStarts(title: title, author: author), letters: LetterPlaces(title: title, author: author),
                              keyPrefix: ByteOrder.prefix(key), length: UInt32(bytes.count - Int(place.offset)), idGap: UInt32(gap))
        withUnsafeBytes(of: summary) { summaries.append(contentsOf: $0.bindMemory(to: UInt8.self)) }
        lastID = id
        count += 1
        return bytes.isFull || summaries.isFull ? nil : place
    }

    func complete() { isComplete = true }

    /// The rows whose token starts admit `required`, in id order, with their places.
    func forEach(admitting required: TokenStarts,
                 _ body: (_ id: Int, _ place: Place, _ key: UnsafeBufferPointer<UInt8>, _ title: UnsafeBufferPointer<UInt8>,
                          _ author: UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        try forEachSummary { id, place, summary, all, textsAt in
            guard summary.starts.admits(required) else { return }
            var offset = textsAt
            let (key, title, author) = Self.texts(all, at: &offset)
            try body(id, place, key, title, author)
        }
    }

    /// For a one-letter query, the letter numbered `letter` (`LetterPlaces`): the rows it
    /// matches, with their rank and key prefix, read from their summaries alone; `texts` reads
    /// a row's key and terms, when the prefix does not settle where it goes.
    func forEach(matchingLetter letter: Int,
                 _ body: (_ id: Int, _ place: Place, _ rank: Int, _ keyPrefix: UInt64, _ texts: () -> Texts) throws -> Void) throws {
        try forEachSummary { id, place, summary, all, textsAt in
            guard let rank = summary.letters.rank(ofLetter: letter) else { return }
            try body(id, place, rank, summary.keyPrefix) {
                var offset = textsAt
                return Self.texts(all, at: &offset)
            }
        }
    }

    /// Every row in id order: its id, place and summary, and where its texts begin in `all`
    /// (`texts(_:at:)`); the walk steps from row to row by the summaries' lengths and ids' gaps,
    /// touching a row's own bytes only when `body` reads them.
    private func forEachSummary(_ body: (_ id: Int, _ place: Place, _ summary: Summary, _ all: UnsafeBufferPointer<UInt8>,
                                         _ textsAt: Int) throws -> Void) throws {
        try summaries.withUnsafeBufferPointer { summaries in
            try bytes.withUnsafeBufferPointer { all in
                var offset = 0
                var id = 0
                for row in 0..<count {
                    try Self.stopIfCancelled(row)
                    let place = Place(offset: UInt32(offset), row: UInt32(row))
                    let summary = Self.summary(ofRow: row, in: summaries)
                    id += Int(summary.idGap)
                    try body(id, place, summary, all, offset)
                    offset += Int(summary.length)
                }
            }
        }
    }

    /// The rows at `places` whose token starts admit `required`, by their number in `places`.
    func forEach(at places: [Place], admitting required: TokenStarts,
                 _ body: (_ row: Int, _ key: UnsafeBufferPointer<UInt8>, _ title: UnsafeBufferPointer<UInt8>,
                          _ author: UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        try summaries.withUnsafeBufferPointer { summaries in
            try bytes.withUnsafeBufferPointer { all in
                for (row, place) in places.enumerated() {
                    try Self.stopIfCancelled(row)
                    if row + Self.readAhead < places.count { Self.prefetch(places[row + Self.readAhead], summaries, all) }
                    guard Self.summary(ofRow: Int(place.row), in: summaries).starts.admits(required) else { continue }
                    var offset = Int(place.offset)
                    let (key, title, author) = Self.texts(all, at: &offset)
                    try body(row, key, title, author)
                }
            }
        }
    }

    /// Every so many rows, a walk stops with `CancellationError` once its search was replaced
    /// by the next key: a walk of ten million rows (a count after its page) takes a second or
    /// more, and the next key's search would wait for it.
    private static func stopIfCancelled(_ row: Int) throws {
        if row & 0x3FFF == 0 { try Task.checkCancellation() }
    }

    /// How many places ahead of the row it judges the walk over places (`forEach(at:)`) asks for.
    private static let readAhead = 16

    /// Asks for the summary and the first bytes of the row at `place` to be brought into the
    /// cache. The kept rows of a scan lie far apart in the copy (an author's books, one in
    /// thirty rows), each one a wait for memory; asked for ahead, the waits overlap: judging
    /// the 35,855 books of "mur" at a million books, the walk itself went from 8 to 3 ms.
    private static func prefetch(_ place: Place, _ summaries: UnsafeBufferPointer<UInt8>, _ all: UnsafeBufferPointer<UInt8>) {
        shim_prefetch(summaries.baseAddress! + Int(place.row) * MemoryLayout<Summary>.size)
        shim_prefetch(all.baseAddress! + Int(place.offset))
    }

    /// The summary of row number `row`. Written unpadded (`withUnsafeBytes(of:)` gives its
    /// size, not its stride).
    private static func summary(ofRow row: Int, in summaries: UnsafeBufferPointer<UInt8>) -> Summary {
        UnsafeRawBufferPointer(summaries).loadUnaligned(fromByteOffset: row * MemoryLayout<Summary>.size, as: Summary.self)
    }

    typealias Texts = (key: UnsafeBufferPointer<UInt8>, title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>)

    /// A row's key, title terms and author terms: its bytes.
    private static func texts(_ all: UnsafeBufferPointer<UInt8>, at offset: inout Int) -> Texts {
        func run(_ length: Int) -> UnsafeBufferPointer<UInt8> {
            defer { offset += length }
            return UnsafeBufferPointer(rebasing: all[offset..<offset + length])
        }
        let keyLength = Int(VarInt.read(all, at: &offset))
        let key = keyLength == 0 ? nil : run(keyLength - 1)
        let title = run(Int(VarInt.read(all, at: &offset)))
        let author = run(Int(VarInt.read(all, at: &offset)))
        return (key ?? title, title, author)
    }
}
