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

    /// Nil where no scratch file can be made: the copy would be the process's own memory.
    init?(sequence: Int, memory: BuildMemory) {
        guard memory.directory != nil else { return nil }
        let bytes = memory.growingBytes(capacity: 16 << 20)
        guard bytes.isInFile else { return nil }
        self.sequence = sequence
        self.bytes = bytes
    }

    /// Appends a row whose id is above every id so far; false when the copy cannot take it
    /// (its file cannot grow, or the id is too far from the last one) and must be given up.
    func append(id: Int, key: UnsafeBufferPointer<UInt8>, title: UnsafeBufferPointer<UInt8>,
                author: UnsafeBufferPointer<UInt8>) -> Bool {
        let gap = id - (lastID ?? 0)
        guard gap > 0, gap <= Int(UInt32.max), title.count < UInt32.max - 1, author.count < UInt32.max, key.count < UInt32.max - 1
        else { return false }
        bytes.append(UInt32(gap))
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
        lastID = id
        count += 1
        return bytes.isInFile
    }

    func complete() { isComplete = true }

    func forEach(_ body: (_ id: Int, _ key: UnsafeBufferPointer<UInt8>, _ title: UnsafeBufferPointer<UInt8>,
                          _ author: UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        try bytes.withUnsafeBufferPointer { all in
            var offset = 0
            var id = 0
            func run(_ length: Int) -> UnsafeBufferPointer<UInt8> {
                defer { offset += length }
                return UnsafeBufferPointer(rebasing: all[offset..<offset + length])
            }
            for _ in 0..<count {
                id += Int(VarInt.read(all, at: &offset))
                let keyLength = Int(VarInt.read(all, at: &offset))
                let key = keyLength == 0 ? nil : run(keyLength - 1)
                let title = run(Int(VarInt.read(all, at: &offset)))
                let author = run(Int(VarInt.read(all, at: &offset)))
                try body(id, key ?? title, title, author)
            }
        }
    }
}
