import BookCatalog
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A built `SearchIndexBase` stored in a file beside the catalog, so that the next connection
/// maps it and reads it in place (a millisecond, and only the pages a search touches become
/// resident) instead of rebuilding it (seconds) or decoding all of it.
///
/// The catalog's `search_snapshots` row of the scope says which file belongs to it: the
/// `change_seq` the file reflects, its book count, and a random snapshot id that the file's
/// header repeats. The file is derived data and never trusted: it is used only when its
/// header matches that row (so a file of another catalog, or an older one, is refused), its
/// length is the one its header states (a truncated file is refused), its header and its
/// small arrays pass their checksums, and its arrays fit together. The large arrays are
/// covered by one checksum per 64 KiB block, checked the first time a search reads the block
/// (`MappedIndexMemory`); a failure there drops the index and rebuilds it. Otherwise a file
/// is ignored, the index rebuilt, and a new file written (to a temporary name, then renamed,
/// so a reader that mapped the old one keeps reading it intact).
///
/// Layout, little-endian: `Header.words` 64-bit words, the scope's UTF-8 bytes (padded to 8),
/// the block checksums, then from `dataStart` (a multiple of 64) the parts, each at a
/// multiple of 8. Block checksums cover everything from `dataStart` to the end.
package enum SearchIndexSnapshot {
    /// Changes whenever the layout of `SearchIndexBase` or of the file changes. Format 1 was
    /// the BLOB parts in the catalog (still ignored and deleted when a new snapshot is saved);
    /// format 3 added the ids in id order, format 4 the broad letters' bitmaps, format 5 the
    /// four-lane `checksum`, format 6 the bitmaps of broad prefixes of up to three characters
    /// (`StoredPrefixes`), format 7 the terms with letters like "ø" and "æ" transliterated,
    /// format 8 the series, publisher and tags (the author's token count in the forward index,
    /// place 3 in the postings, a fourth bitmap per stored prefix).
    package static let format = 8
    package static let magic: UInt64 = 0x3158_4449_4853_4B42  // "BKSHIDX1"

    package enum Part: Int, CaseIterable {
        case vocabularyBytes, vocabularyStart, numberOfCode, bookBytes, bookStart, ids, postingBytes, postingStart,
            postingsBefore, sortedIDs, ordinalOfSorted, prefixTable, prefixBitmaps
    }

    /// The fixed words at the start of the file.
    package struct Header {
        package static let words = 12 + 2 * Part.allCases.count + 2
        package static let largestIDWord = words - 2
        package static let checksumWord = words - 1
        package static let maximumScopeBytes = 4_096

        package var snapshotID: UInt64
        package var sequence: Int
        package var count: Int
        package var idBase: Int
        package var bookStartWidth: Int
        package var idsWidth: Int
        package var scope: [UInt8]
        package var dataStart: Int
        package var fileLength: Int
        package var parts: [(offset: Int, length: Int)]
        package var largestID: Int

        package var blockCount: Int { MappedIndexMemory.blockCount(dataBytes: fileLength - dataStart) }
        package var tableStart: Int { Self.words * 8 + (scope.count + 7) / 8 * 8 }

        /// The file's first `dataStart` bytes, with the checksum.
        package func preamble(blockChecksums: [UInt64]) -> [UInt8] {
            var words: [UInt64] = [
                magic, UInt64(format), snapshotID, UInt64(sequence), UInt64(count),
                UInt64(bitPattern: Int64(idBase)), UInt64(bookStartWidth), UInt64(idsWidth),
                UInt64(scope.count), UInt64(dataStart), UInt64(fileLength), UInt64(blockChecksums.count),
            ]
            for part in parts { words += [UInt64(part.offset), UInt64(part.length)] }
            words += [UInt64(bitPattern: Int64(largestID)), 0]
            var bytes = [UInt8](repeating: 0, count: dataStart)
            bytes.withUnsafeMutableBytes { raw in
                for (index, word) in words.enumerated() {
                    raw.storeBytes(of: word.littleEndian, toByteOffset: index * 8, as: UInt64.self)
                }
                for (index, byte) in scope.enumerated() { raw[Self.words * 8 + index] = byte }
                for (index, sum) in blockChecksums.enumerated() {
                    raw.storeBytes(of: sum.littleEndian, toByteOffset: tableStart + index * 8, as: UInt64.self)
                }
            }
            let sum = bytes.withUnsafeBytes { SearchIndexSnapshot.checksum($0) }
            bytes.withUnsafeMutableBytes {
                $0.storeBytes(of: sum.littleEndian, toByteOffset: Self.checksumWord * 8, as: UInt64.self)
            }
            return bytes
        }
    }

    /// What the catalog says the file must be.
    package struct Expectation: Equatable {
        package let snapshotID: UInt64
        package let scope: String
        package let sequence: Int
        package let count: Int
        /// The largest id of the scope when the index was built: catching up trusts it to tell
        /// a book added since from one the file's id order should have listed.
        package let largestID: Int

        /// How the catalog's `search_snapshots.header` records the id and the largest id.
        package var recorded: String { String(snapshotID, radix: 16) + " " + String(largestID) }

        package init(snapshotID: UInt64, scope: String, sequence: Int, count: Int, largestID: Int) {
            self.snapshotID = snapshotID
            self.scope = scope
            self.sequence = sequence
            self.count = count
            self.largestID = largestID
        }

        package init?(recorded: String, scope: String, sequence: Int, count: Int) {
            let fields = recorded.split(separator: " ")
            guard fields.count == 2, let snapshotID = UInt64(fields[0], radix: 16), let largestID = Int(fields[1])
            else { return nil }
            self.init(snapshotID: snapshotID, scope: scope, sequence: sequence, count: count, largestID: largestID)
        }
    }

    /// The file holding `scope`'s snapshot beside the catalog at `catalogPath` (`IndexFilePlace`).
    /// The scope is in the name as a hash (any text is a scope) and in the header in full.
    package static func path(catalogPath: String, scope: String) -> String {
        IndexFilePlace.beside(catalogPath: catalogPath, scope: scope)
    }

    // MARK: Saving

    /// Writes `base` as the scope's snapshot in the source's index file, unless a more recent
    /// one is recorded. Answers the new snapshot's id, or nil when it did not write.
    @discardableResult
    package static func save(_ base: SearchIndexBase, scope: String, to source: any SearchSource) throws -> UInt64? {
        let path = source.indexFilePath
        removeAbandonedTemporaries(of: path)
        let temporary = path + ".writing-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(temporary) }
        let snapshotID = UInt64.random(in: 1...UInt64.max)
        // The index is as private as the catalog it indexes (SQLite does the same for its
        // -wal and -shm files): a 0600 catalog never gets a 0644 index beside it.
        var catalogStatus = stat()
        let mode =
            source.indexFileTakesModeOf.flatMap {
                stat($0, &catalogStatus) == 0 ? mode_t(catalogStatus.st_mode & 0o666) : nil
            }
        try write(base, scope: scope, snapshotID: snapshotID, to: temporary, mode: mode)
        let expectation = Expectation(
            snapshotID: snapshotID, scope: scope, sequence: base.sequence, count: base.count,
            largestID: base.largestID)
        let record = StoredIndexRecord(
            format: format, sequence: base.sequence, count: base.count, recorded: expectation.recorded)
        let recorded = try source.recordStoredIndex(record) {
            // Renamed while the source records it, so the record and the file change together.
            guard rename(temporary, path) == 0 else {
                throw SearchIndexDamage("cannot store the snapshot: \(String(cString: strerror(errno)))")
            }
        }
        return recorded ? snapshotID : nil
    }

    /// Deletes the half-written files of writers that died (killed mid-write, their `defer`
    /// never ran): at ten million books each is hundreds of megabytes. A file whose writer
    /// is still alive is left alone.
    package static func removeAbandonedTemporaries(of path: String) {
        let directory = folder(holding: path)
        let prefix = (path as NSString).lastPathComponent + ".writing-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasPrefix(prefix)
        {
            guard let writer = name.dropFirst(prefix.count).split(separator: "-").first.flatMap({ pid_t($0) }),
                writer > 0,
                kill(writer, 0) == -1, errno == ESRCH
            else { continue }
            unlink(directory + "/" + name)
        }
    }

    /// A part's bytes: held by the base, or made while the file is written (each prefix's
    /// bitmaps in turn, so that they are never all in memory at once).
    private enum PartSource {
        case bytes(UnsafeRawBufferPointer)
        case produced(length: Int, produce: (_ emit: (UnsafeRawBufferPointer) throws -> Void) throws -> Void)

        package var length: Int {
            switch self {
            case let .bytes(bytes): bytes.count
            case let .produced(length, _): length
            }
        }
    }

    /// The parts of `base`, in file order.
    private static func parts(_ base: SearchIndexBase) -> [PartSource] {
        let held = [
            UnsafeRawBufferPointer(base.vocabularyBytes.buffer), UnsafeRawBufferPointer(base.vocabularyStart.buffer),
            UnsafeRawBufferPointer(base.numberOfCode.buffer), UnsafeRawBufferPointer(base.bookBytes.buffer),
            UnsafeRawBufferPointer(base.bookStart.words.buffer), UnsafeRawBufferPointer(base.ids.words.buffer),
            UnsafeRawBufferPointer(base.postingBytes.buffer), UnsafeRawBufferPointer(base.postingStart.buffer),
            UnsafeRawBufferPointer(base.postingsBefore.buffer), UnsafeRawBufferPointer(base.sortedIDs.words.buffer),
            UnsafeRawBufferPointer(base.ordinalOfSorted.words.buffer),
        ]
        let chosen = StoredPrefixes.chosen(for: base)
        let table = chosen.map(\.code)
        let bitmapBytes = (base.count + 63) / 64 * 8
        return held.map(PartSource.bytes) + [
            .produced(length: table.count * 8) { emit in try table.withUnsafeBytes(emit) },
            .produced(length: chosen.count * StoredPrefixes.bitmapsPerPrefix * bitmapBytes) { emit in
                for entry in chosen {
                    let places = try base.placesFromPostings(of: entry.word)
                    for bitmap in [places.anywhere, places.inTitle, places.first, places.inTitleOrAuthor] {
                        try bitmap.withUnsafeBytes(emit)
                    }
                }
            },
        ]
    }

    /// Writes the file in one pass through a block-sized buffer (no second copy of the index).
    /// `mode`, when given, is the file's exact permissions (the umask does not apply).
    package static func write(
        _ base: SearchIndexBase, scope: String, snapshotID: UInt64, to path: String, mode: mode_t? = nil
    )
        throws
    {
        let parts = parts(base)
        let scopeBytes = Array(scope.utf8)
        guard scopeBytes.count <= Header.maximumScopeBytes else {
            throw SearchIndexDamage("scope name too long for a snapshot")
        }
        // The layout: data first (its size fixes the number of blocks, which fixes dataStart).
        var relative: [(offset: Int, length: Int)] = []
        var dataLength = 0
        for part in parts {
            dataLength = (dataLength + 7) / 8 * 8
            relative.append((dataLength, part.length))
            dataLength += part.length
        }
        let blocks = MappedIndexMemory.blockCount(dataBytes: dataLength)
        let dataStart = (Header.words * 8 + (scopeBytes.count + 7) / 8 * 8 + blocks * 8 + 63) / 64 * 64
        var header = Header(
            snapshotID: snapshotID, sequence: base.sequence, count: base.count, idBase: base.idBase,
            bookStartWidth: base.bookStart.width, idsWidth: base.ids.width, scope: scopeBytes,
            dataStart: dataStart, fileLength: dataStart + dataLength,
            parts: relative.map { (dataStart + $0.offset, $0.length) }, largestID: base.largestID)

        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw SearchIndexDamage("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        if let mode, fchmod(descriptor, mode) != 0 {
            throw SearchIndexDamage("cannot set the permissions of \(path): \(String(cString: strerror(errno)))")
        }
        func writeAll(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
            var done = 0
            while done < bytes.count {
                let written = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
                guard written > 0 else {
                    throw SearchIndexDamage("cannot write the snapshot: \(String(cString: strerror(errno)))")
                }
                done += written
            }
        }
        var checksums: [UInt64] = []
        checksums.reserveCapacity(blocks)
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: MappedIndexMemory.blockSize, alignment: 8)
        defer { block.deallocate() }
        var filled = 0
        var position = 0  // in the data area
        func flush() throws {
            guard filled > 0 else { return }
            let bytes = UnsafeRawBufferPointer(rebasing: block[0..<filled])
            checksums.append(checksum(bytes))
            try writeAll(bytes, at: dataStart + position - filled)
            filled = 0
        }
        try withExtendedLifetime(base) {
            for (part, place) in zip(parts, relative) {
                while position < place.offset {  // padding
                    block[filled] = 0
                    filled += 1
                    position += 1
                    if filled == block.count { try flush() }
                }
                func append(_ bytes: UnsafeRawBufferPointer) throws {
                    var taken = 0
                    while taken < bytes.count {
                        let length = min(bytes.count - taken, block.count - filled)
                        UnsafeMutableRawBufferPointer(rebasing: block[filled..<filled + length])
                            .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[taken..<taken + length]))
                        filled += length
                        taken += length
                        position += length
                        if filled == block.count { try flush() }
                    }
                }
                switch part {
                case let .bytes(bytes): try append(bytes)
                case let .produced(_, produce): try produce(append)
                }
                guard position == place.offset + place.length else {
                    throw SearchIndexDamage("a part's length changed while it was written")
                }
            }
            try flush()
        }
        header.fileLength = dataStart + position
        try header.preamble(blockChecksums: checksums).withUnsafeBytes { try writeAll($0, at: 0) }
    }

    // MARK: Loading

    /// The scope's snapshot, mapped, if one is usable at `sequence` (the current
    /// `max(change_seq)`, read in the caller's transaction) with at most `maximumBehind(books)`
    /// rows changed since, and how many did. Nil when there is none, it is too far behind, or
    /// it fails a check.
    package static func load(
        scope: String, sequence: Int, maximumBehind: (Int) -> Int, from source: any SearchSource
    ) throws -> (base: SearchIndexBase, behind: Int)? {
        guard let record = try source.storedIndexRecord(format: format),
            let expected = Expectation(
                recorded: record.recorded, scope: scope, sequence: record.sequence, count: record.count)
        else { return nil }
        let (stored, count) = (record.sequence, record.count)
        guard stored <= sequence, count >= 0 else { return nil }
        let behind = try source.changeCount(since: stored, upTo: maximumBehind(count) + 1)
        guard behind <= maximumBehind(count) else { return nil }
        return (try? map(source.indexFilePath, expecting: expected)).map { ($0, behind) }
    }

    /// Maps the file at `path` and decodes it.
    ///
    /// Only a regular file of this user's is an index: a FIFO put in its place would block the
    /// open (and every search) for ever, a symlink or a device would be read from wherever it
    /// points, another user's file could be swapped under us. Opened without following a
    /// symlink and without blocking, then checked by `fstat`; anything else is a damaged
    /// index, rebuilt like one.
    package static func map(_ path: String, expecting expected: Expectation?) throws(SearchIndexDamage)
        -> SearchIndexBase
    {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { throw SearchIndexDamage("no snapshot file") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw SearchIndexDamage("the snapshot file cannot be read") }
        guard status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid() else {
            throw SearchIndexDamage("the snapshot is not a regular file of this user's")
        }
        guard status.st_size > 0, status.st_size <= Int.max / 2 else {
            throw SearchIndexDamage("the snapshot file cannot be read")
        }
        let length = Int(status.st_size)
        guard let address = mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED else {
            throw SearchIndexDamage("the snapshot file cannot be mapped")
        }
        return try decode(
            UnsafeRawBufferPointer(start: address, count: length), ownership: .mapped, expecting: expected)
    }

    /// Decodes a snapshot from `bytes` (a copy of them): the loader's whole decode, for tests
    /// and fuzzing. With `expected` nil, any catalog's snapshot is accepted.
    package static func decode(copying bytes: UnsafeRawBufferPointer, expecting expected: Expectation? = nil)
        throws(SearchIndexDamage) -> SearchIndexBase
    {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 64)
        copy.copyMemory(from: bytes)
        return try decode(
            UnsafeRawBufferPointer(rebasing: copy[0..<bytes.count]), ownership: .allocated, expecting: expected)
    }

    /// Checks and views `bytes` as an index; takes them over (`ownership`) whether it succeeds
    /// or not. Only the header, the small arrays and the arrays' ends are checked here.
    private static func decode(
        _ bytes: UnsafeRawBufferPointer, ownership: SnapshotBytes.Ownership,
        expecting expected: Expectation?
    ) throws(SearchIndexDamage) -> SearchIndexBase {
        // Owns `bytes` from here on, so every early exit gives them back.
        let file = SnapshotBytes(bytes, ownership: ownership)
        func word(_ index: Int) -> UInt64 {
            UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))
        }
        func small(_ index: Int, atMost limit: Int) throws(SearchIndexDamage) -> Int {
            let value = word(index)
            guard value <= UInt64(limit) else { throw SearchIndexDamage("header field \(index) out of range") }
            return Int(value)
        }
        guard bytes.count >= Header.words * 8, word(0) == magic else {
            throw SearchIndexDamage("not a search index snapshot")
        }
        guard word(1) == UInt64(format) else { throw SearchIndexDamage("another snapshot format") }
        let length = bytes.count
        let scopeLength = try small(8, atMost: Header.maximumScopeBytes)
        let dataStart = try small(9, atMost: length)
        guard try small(10, atMost: Int.max) == length else {
            throw SearchIndexDamage("the snapshot file is truncated or too long")
        }
        let blocks = MappedIndexMemory.blockCount(dataBytes: length - dataStart)
        let tableStart = Header.words * 8 + (scopeLength + 7) / 8 * 8
        guard try small(11, atMost: length) == blocks, dataStart % 64 == 0, tableStart + blocks * 8 <= dataStart else {
            throw SearchIndexDamage("the snapshot's layout is inconsistent")
        }
        var preamble = Array(UnsafeRawBufferPointer(rebasing: bytes[0..<dataStart]))
        preamble.withUnsafeMutableBytes { $0.storeBytes(of: 0, toByteOffset: Header.checksumWord * 8, as: UInt64.self) }
        guard preamble.withUnsafeBytes({ checksum($0) }) == word(Header.checksumWord) else {
            throw SearchIndexDamage("the snapshot's header fails its checksum")
        }
        let count = try small(4, atMost: length * 8)
        let scope = String(
            decoding: UnsafeRawBufferPointer(rebasing: bytes[Header.words * 8..<Header.words * 8 + scopeLength]),
            as: UTF8.self)
        if let expected {
            let found = Expectation(
                snapshotID: word(2), scope: scope, sequence: Int(truncatingIfNeeded: word(3)), count: count,
                largestID: Int(truncatingIfNeeded: word(Header.largestIDWord)))
            guard found == expected else { throw SearchIndexDamage("the snapshot is not the one the catalog recorded") }
        }
        let checksums = UnsafeRawBufferPointer(rebasing: bytes[tableStart..<tableStart + blocks * 8])
            .assumingMemoryBound(to: UInt64.self)
        let memory = MappedIndexMemory(file: file, dataStart: dataStart, blockChecksums: checksums)

        func array<Element: BitwiseCopyable>(_ part: Part, as: Element.Type) throws(SearchIndexDamage) -> IndexArray<
            Element
        > {
            let offset = try small(12 + 2 * part.rawValue, atMost: length)
            let size = try small(13 + 2 * part.rawValue, atMost: length)
            let stride = MemoryLayout<Element>.stride
            guard offset >= dataStart, offset % 8 == 0, size <= length - offset, size % stride == 0 else {
                throw SearchIndexDamage("part \(part) lies outside the snapshot")
            }
            let typed = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + size]).assumingMemoryBound(
                to: Element.self)
            return IndexArray(buffer: typed, memory: memory, offsetInMemory: offset)
        }
        // Every id is idBase + a stored value of idsWidth bits: the sum must be a positive Int
        // whatever the stored bits say, or a crafted file could make it trap.
        let idBase = Int(Int64(bitPattern: word(5)))
        let idsWidth = try small(7, atMost: 63)
        guard idBase >= 0, idBase <= Int.max - Int((UInt64(1) << idsWidth) - 1) else {
            throw SearchIndexDamage("the snapshot's ids lie outside every possible id")
        }
        guard
            let bookStart = PackedIntegers(
                count: count + 1, width: try small(6, atMost: 64), words: try array(.bookStart, as: UInt64.self)),
            let ids = PackedIntegers(count: count, width: idsWidth, words: try array(.ids, as: UInt64.self)),
            let sortedIDs = PackedIntegers(
                count: count, width: idsWidth, words: try array(.sortedIDs, as: UInt64.self)),
            let ordinalOfSorted = PackedIntegers(
                count: count, width: PackedIntegers.width(maximum: UInt64(max(count - 1, 0))),
                words: try array(.ordinalOfSorted, as: UInt64.self))
        else { throw SearchIndexDamage("the snapshot's packed arrays have the wrong size") }
        let base = SearchIndexBase(
            sequence: Int(truncatingIfNeeded: word(3)), count: count,
            vocabularyBytes: try array(.vocabularyBytes, as: UInt8.self),
            vocabularyStart: try array(.vocabularyStart, as: UInt32.self),
            numberOfCode: try array(.numberOfCode, as: UInt32.self), bookBytes: try array(.bookBytes, as: UInt8.self),
            bookStart: bookStart, idBase: idBase, ids: ids, sortedIDs: sortedIDs, ordinalOfSorted: ordinalOfSorted,
            largestID: Int(truncatingIfNeeded: word(Header.largestIDWord)),
            postingBytes: try array(.postingBytes, as: UInt8.self),
            postingStart: try array(.postingStart, as: UInt32.self),
            postingsBefore: try array(.postingsBefore, as: UInt32.self),
            storedPrefixes: StoredPrefixes(
                table: try array(.prefixTable, as: UInt64.self), bitmaps: try array(.prefixBitmaps, as: UInt64.self)))
        try base.validate()
        return base
    }

    /// A 64-bit checksum of `bytes` (not cryptographic: it catches damage, not forgery).
    ///
    /// Four lanes take turns over 32-byte stripes: each multiply waits only for its own lane's
    /// previous one, so the processor overlaps them. A single chain (format 4 and before) was
    /// bound by the multiply's latency, several times slower, and blocks are checked on the search
    /// path the first time a search reads them (`search --count 10000000` on a cold index).
    package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        @inline(__always) func mix(_ lane: UInt64, _ word: UInt64) -> UInt64 {
            let mixed = (lane ^ word) &* 0xFF51_AFD7_ED55_8CCD
            return mixed ^ (mixed >> 32)
        }
        var first: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var second: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        var third: UInt64 = 0x1656_67B1_9E37_79F9
        var fourth: UInt64 = 0x85EB_CA77_C2B2_AE63
        let stripes = bytes.count / 32
        for stripe in 0..<stripes {
            let offset = stripe * 32
            first = mix(first, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            second = mix(second, bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            third = mix(third, bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
            fourth = mix(fourth, bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
        }
        var hash = mix(mix(mix(first, second), third), fourth)
        var offset = stripes * 32
        while offset + 8 <= bytes.count {
            hash = mix(hash, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        while offset < bytes.count {
            hash = (hash ^ UInt64(bytes[offset])) &* 0xC4CE_B9FE_1A85_EC53
            offset += 1
        }
        return hash ^ (hash >> 29)
    }
}

/// The snapshot decoder for fuzzing and inspection: decodes `bytes` as a snapshot file of
/// any catalog and runs `queries` through the resulting index, reading every part a search
/// can read. Answers the ids of each query's first page, or nil when the snapshot is refused
/// (at decode, or later when a read fails its checks). Must never crash or read out of bounds.
public enum SearchIndexSnapshotProbe {
    public static func decodeAndSearch(_ bytes: [UInt8], queries: [String]) -> [[Int]]? {
        let decoded = bytes.withUnsafeBytes { raw in
            Result { () throws(SearchIndexDamage) in try SearchIndexSnapshot.decode(copying: raw) }
        }
        guard case let .success(base) = decoded else { return nil }
        return search(base, queries: queries)
    }

    /// `decodeAndSearch` through the path a catalog's open takes: `bytes` written to a file at
    /// `path`, which is then opened, checked, mapped and searched (its blocks checked as read).
    public static func mapAndSearch(_ bytes: [UInt8], at path: String, queries: [String]) -> [[Int]]? {
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return nil }
        defer { unlink(path) }
        guard let base = try? SearchIndexSnapshot.map(path, expecting: nil) else { return nil }
        return search(base, queries: queries)
    }

    private static func search(_ base: SearchIndexBase, queries: [String]) -> [[Int]]? {
        let index = SearchIndex(base: base)
        var pages: [[Int]] = []
        for text in queries {
            // A fresh index has no changes to place, so it never asks for a title key.
            guard let page = try? index.search(SearchTerms(text), offset: 0, limit: 50, titleKey: { _ in nil }) else {
                return nil
            }
            // Catching up finds books by id: the listed ones and their neighbours must not crash
            // it, and a listed book it cannot find (it could not be hidden) refuses the file.
            for id in page.ids {
                _ = try? base.ordinal(ofID: id &- 1)
                _ = try? base.ordinal(ofID: id &+ 1)
                guard (try? base.ordinal(ofID: id)) != nil else { return nil }
            }
            pages.append(page.ids)
        }
        return pages
    }

    /// `bytes` with every checksum recomputed, as a crafted file would be: lets a fuzzer or
    /// a test get past the checksums to the structural checks behind them. Unchanged when
    /// the header's layout fields make no sense.
    public static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        let header = SearchIndexSnapshot.Header.self
        guard bytes.count >= header.words * 8 else { return bytes }
        var sealed = bytes
        sealed.withUnsafeMutableBytes { raw in
            func word(_ index: Int) -> Int {
                Int(
                    truncatingIfNeeded: UInt64(
                        littleEndian: raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)))
            }
            let scopeLength = word(8), dataStart = word(9)
            guard (0...header.maximumScopeBytes).contains(scopeLength), (0...raw.count).contains(dataStart) else {
                return
            }
            let tableStart = header.words * 8 + (scopeLength + 7) / 8 * 8
            let blocks = MappedIndexMemory.blockCount(dataBytes: raw.count - dataStart)
            guard tableStart + blocks * 8 <= dataStart else { return }
            for block in 0..<blocks {
                let start = dataStart + block * MappedIndexMemory.blockSize
                let end = min(start + MappedIndexMemory.blockSize, raw.count)
                let sum = SearchIndexSnapshot.checksum(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
                raw.storeBytes(of: sum.littleEndian, toByteOffset: tableStart + block * 8, as: UInt64.self)
            }
            raw.storeBytes(of: 0, toByteOffset: header.checksumWord * 8, as: UInt64.self)
            let sum = SearchIndexSnapshot.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<dataStart]))
            raw.storeBytes(of: sum.littleEndian, toByteOffset: header.checksumWord * 8, as: UInt64.self)
        }
        return sealed
    }
}
