import CSQLite

/// A built `SearchIndexBase` stored in the catalog file, so that the next connection loads it
/// (tens of milliseconds) instead of rebuilding it (seconds).
///
/// One row per scope in `search_snapshots` says which `change_seq` the snapshot reflects; its
/// arrays are BLOBs in `search_snapshot_parts`, read with incremental blob I/O straight into
/// the final arrays (no second copy in SQLite's memory). A snapshot is used only when its
/// format is this program's, every part's checksum matches, the arrays are consistent, and
/// few enough rows changed since it was taken; the remote then catches up through
/// `change_seq` as it does after any other connection's commit. Otherwise it is ignored and
/// the index is rebuilt (and saved again).
enum SearchIndexSnapshot {
    /// Changes whenever the layout of `SearchIndexBase` or of the parts changes.
    static let format = 1

    private enum Part: Int, CaseIterable {
        case vocabularyBytes, vocabularyStart, numberOfCode, bookBytes, bookStart, ids, postingBytes, postingStart,
             postingsBefore
    }

    // MARK: Saving

    /// Replaces the scope's snapshot with `base`, unless a more recent one is stored.
    /// Answers whether it wrote.
    @discardableResult
    static func save(_ base: SearchIndexBase, scope: String, connection: Connection) throws -> Bool {
        let checksums = Part.allCases.map { part in withBytes(of: base, part) { checksum($0) } }
        let header: [Int64] = [Int64(base.count), Int64(base.idBase), Int64(base.bookStart.width), Int64(base.ids.width)]
            + checksums.map { Int64(bitPattern: $0) }
        return try connection.transaction(immediate: true) {
            let stored = try connection.queryFirst(
                "SELECT change_seq FROM search_snapshots WHERE scope = ?1 AND format = ?2", [.text(scope), .int(format)]) { $0.int(0) }
            if let stored, stored > base.sequence { return false }
            try connection.run("DELETE FROM search_snapshot_parts WHERE scope = ?1", [.text(scope)])
            try connection.run("DELETE FROM search_snapshots WHERE scope = ?1", [.text(scope)])
            let row = try connection.statement(
                "INSERT INTO search_snapshots(scope, format, change_seq, book_count, header) VALUES (?1, ?2, ?3, ?4, ?5)")
            try row.bind([.text(scope), .int(format), .int(base.sequence), .int(base.count)])
            try header.withUnsafeBytes { bytes in
                try row.bindBlobWithoutCopy(5, bytes)
                defer { row.reset() }
                while try row.step() {}
            }
            let insert = try connection.statement("INSERT INTO search_snapshot_parts(scope, part, data) VALUES (?1, ?2, ?3)")
            for part in Part.allCases {
                try insert.bind([.text(scope), .int(part.rawValue)])
                try withBytes(of: base, part) { bytes in
                    try insert.bindBlobWithoutCopy(3, bytes)
                    defer { insert.reset() }
                    while try insert.step() {}
                }
            }
            return true
        }
    }

    private static func withBytes<T>(of base: SearchIndexBase, _ part: Part, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        switch part {
        case .vocabularyBytes: try base.vocabularyBytes.withUnsafeBytes(body)
        case .vocabularyStart: try base.vocabularyStart.withUnsafeBytes(body)
        case .numberOfCode: try base.numberOfCode.withUnsafeBytes(body)
        case .bookBytes: try base.bookBytes.withUnsafeBytes(body)
        case .bookStart: try base.bookStart.words.withUnsafeBytes(body)
        case .ids: try base.ids.words.withUnsafeBytes(body)
        case .postingBytes: try base.postingBytes.withUnsafeBytes(body)
        case .postingStart: try base.postingStart.withUnsafeBytes(body)
        case .postingsBefore: try base.postingsBefore.withUnsafeBytes(body)
        }
    }

    // MARK: Loading

    /// The scope's snapshot, if one is usable at `sequence` (the current `max(change_seq)`,
    /// read in the caller's transaction) with at most `maximumBehind(books)` rows changed since.
    static func load(scope: String, sequence: Int, maximumBehind: (Int) -> Int, connection: Connection) throws -> SearchIndexBase? {
        guard let (stored, count, header) = try connection.queryFirst(
            "SELECT change_seq, book_count, header FROM search_snapshots WHERE scope = ?1 AND format = ?2",
            [.text(scope), .int(format)], row: { row in
                let raw = row.blob(2)
                return (row.int(0), row.int(1), (0..<raw.count / 8).map { raw.loadUnaligned(fromByteOffset: $0 * 8, as: Int64.self) })
            })
        else { return nil }
        guard stored <= sequence, header.count == 4 + Part.allCases.count, header[0] == count,
              Self.isPlausible(count: count, idBase: header[1], widths: header[2], header[3])
        else { return nil }
        let behind = try connection.queryFirst(
            "SELECT count(*) FROM (SELECT 1 FROM books WHERE change_seq > ?1 AND +scope = ?2 LIMIT ?3)",
            [.int(stored), .text(scope), .int(maximumBehind(count) + 1)]) { $0.int(0) } ?? 0
        guard behind <= maximumBehind(count) else { return nil }

        let rows = try connection.query(
            "SELECT part, id, length(data) FROM search_snapshot_parts WHERE scope = ?1 ORDER BY part", [.text(scope)]
        ) { (part: $0.int(0), rowid: $0.int(1), length: $0.int(2)) }
        guard rows.map(\.part) == Part.allCases.map(\.rawValue) else { return nil }
        let checksums = header[4...].map { UInt64(bitPattern: $0) }

        func read<Element: BitwiseCopyable>(_ part: Part, as: Element.Type) throws -> [Element]? {
            let row = rows[part.rawValue]
            guard row.length % MemoryLayout<Element>.stride == 0 else { return nil }
            let elements = row.length / MemoryLayout<Element>.stride
            let array = try [Element](unsafeUninitializedCapacity: elements) { buffer, initialized in
                try readBlob(rowid: row.rowid, into: UnsafeMutableRawBufferPointer(buffer), connection: connection)
                initialized = elements
            }
            let matches = array.withUnsafeBytes { checksum($0) } == checksums[part.rawValue]
            return matches ? array : nil
        }
        guard let vocabularyBytes = try read(.vocabularyBytes, as: UInt8.self),
              let vocabularyStart = try read(.vocabularyStart, as: UInt32.self),
              let numberOfCode = try read(.numberOfCode, as: UInt32.self),
              let bookBytes = try read(.bookBytes, as: UInt8.self),
              let bookStartWords = try read(.bookStart, as: UInt64.self),
              let idWords = try read(.ids, as: UInt64.self),
              let postingBytes = try read(.postingBytes, as: UInt8.self),
              let postingStart = try read(.postingStart, as: UInt32.self),
              let postingsBefore = try read(.postingsBefore, as: UInt32.self),
              let bookStart = PackedIntegers(count: count + 1, width: Int(header[2]), words: bookStartWords),
              let ids = PackedIntegers(count: count, width: Int(header[3]), words: idWords)
        else { return nil }
        let base = SearchIndexBase(sequence: stored, count: count, vocabularyBytes: vocabularyBytes,
                                   vocabularyStart: vocabularyStart, numberOfCode: numberOfCode, bookBytes: bookBytes,
                                   bookStart: bookStart, idBase: Int(header[1]), ids: ids, postingBytes: postingBytes,
                                   postingStart: postingStart, postingsBefore: postingsBefore)
        return base.isConsistent ? base : nil
    }

    /// The book count, id base and packed widths are not covered by the part checksums (they
    /// sit in the row and its header), so a damaged value must not reach arithmetic that traps:
    /// ordinals are `Int32`, ids and offsets must fit an `Int` after adding the base.
    private static func isPlausible(count: Int, idBase: Int64, widths: Int64...) -> Bool {
        (0..<Int(Int32.max)).contains(count) && (0..<(Int64(1) << 62)).contains(idBase)
            && widths.allSatisfy { (1...62).contains($0) }
    }

    private static func readBlob(rowid: Int, into buffer: UnsafeMutableRawBufferPointer, connection: Connection) throws {
        var blob: OpaquePointer?
        let opened = sqlite3_blob_open(connection.handle, "main", "search_snapshot_parts", "data", sqlite3_int64(rowid), 0, &blob)
        defer { sqlite3_blob_close(blob) }
        guard opened == SQLITE_OK, let blob else { throw connection.lastError(opened) }
        guard Int(sqlite3_blob_bytes(blob)) == buffer.count else { throw SQLiteError(code: SQLITE_CORRUPT, message: "snapshot part changed size") }
        // Chunks keep each call's length within Int32.
        var offset = 0
        while offset < buffer.count {
            let length = min(buffer.count - offset, 1 << 24)
            let result = sqlite3_blob_read(blob, buffer.baseAddress! + offset, Int32(length), Int32(offset))
            guard result == SQLITE_OK else { throw connection.lastError(result) }
            offset += length
        }
    }

    /// A 64-bit checksum of `bytes` (not cryptographic: it catches damage, not forgery).
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        let words = bytes.count / 8
        for index in 0..<words {
            let word = bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)
            hash = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 32
        }
        for index in (words * 8)..<bytes.count {
            hash = (hash ^ UInt64(bytes[index])) &* 0xC4CE_B9FE_1A85_EC53
        }
        return hash ^ (hash >> 29)
    }
}
