import BookCatalog
import Foundation
@testable import SQLiteCatalog
@testable import SearchEngine
import TestTags
import Testing

/// The stored index file is derived data, never trusted (`SearchIndexSnapshot`, `IndexStorage`): a
/// file that is damaged, truncated, crafted, another catalog's or not a regular file is refused or
/// detected, and the remote answers exactly from a rebuilt index.
@Suite struct SearchIndexSnapshotTests: SearchIndexTesting {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// A file of format 7, from before the other fields (its forward index has no author counts,
    /// its postings no place 3, its prefixes three bitmaps), is never read, though its catalog
    /// row and its header agree and its checksums hold: the index is rebuilt and stored in the
    /// current format.
    @Test func aFormatSevenSnapshotIsRebuiltNeverRead() async throws {
        let path = directory.path("format7.sqlite")
        let (catalog, books) = try makeCatalog(books: 200, path: path)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        var file = try SnapshotFile(catalog: path)
        file.bytes.withUnsafeMutableBytes { $0.storeBytes(of: UInt64(7), toByteOffset: 8, as: UInt64.self) }
        file.reseal()
        try file.save()
        try withRawConnection(path) { try execute($0, "UPDATE search_snapshots SET format = 7") }

        let remote = try catalog.remote(account: "reader")
        try await expectExactSearches(remote, books)
        let (report, stored) = try await remote.searchIndexReport()
        #expect(report.origin == .built && stored, "\(report)")
        let raw = try RawConnection(path)
        #expect(try queryText(raw.handle, "SELECT format FROM search_snapshots") == "8")
    }

    @Test func aSnapshotWithAWrongBlockChecksumIsDetectedAndRebuilt() async throws {
        try await expectDamageDetected("block-checksum") { file in
            // The block checksums end right before the data (padding to 64 bytes aside): change the last one.
            var at = file.dataStart - 8
            while file.word(at / 8) == 0 { at -= 8 }
            file.bytes[at] ^= 0x01
        }
    }

    @Test func aSnapshotWithAChangedHeaderIsDetectedAndRebuilt() async throws {
        try await expectDamageDetected("header") { file in
            file.bytes[4 * 8] ^= 0x02  // the book count
        }
    }

    @Test func aSnapshotWithAForgedDataChecksumIsStillBoundsChecked() async throws {
        // Damage that a checksum cannot catch because the block's checksum was recomputed: a
        // crafted file. It must still never be read out of bounds: here every posting entry
        // is a gap that points far past the last book.
        try await expectDamageDetected("forged") { file in
            let postings = file.part(6)
            for at in postings.dropLast() { file.bytes[at] = 0xFF }
            file.reseal()
        }
    }

    /// A crafted vocabulary (checksums recomputed) out of byte order: a prefix's binary
    /// search then lands on tokens that do not start with it, which were once indexed past
    /// their end (a crash in the background warm-up of the broad prefixes, seen once in a
    /// full run). They are damage: detected, and the index rebuilt.
    @Test func aCraftedVocabularyOutOfOrderIsDetectedAndRebuilt() async throws {
        try await expectDamageDetected("vocabulary-reversed") { file in
            file.bytes[file.part(0)].reverse()
            file.reseal()
        }
    }

    /// The ids in id order are what catching up uses to hide a changed book's old entry. A
    /// crafted order (checksums recomputed) must not leave the old entry listed beside the new.
    @Test(arguments: ["ordinals reversed", "ids zeroed"])
    func aCraftedIDOrderIsNotTrusted(craft: String) async throws {
        let path = directory.path("order-\(craft).sqlite")
        let (catalog, books) = try makeCatalog(books: 200, path: path)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        var file = try SnapshotFile(catalog: path)
        if craft == "ordinals reversed" {
            file.bytes[file.part(10)].reverse()  // each id's ordinal now names another book
        } else {
            for offset in file.part(9) { file.bytes[offset] = 0 }  // no id is found any more
        }
        file.reseal()
        try file.save()
        // Another program renames books after the snapshot: an index must hide their old entries.
        let writer = try SQLiteCatalog.open(path: path, create: false)
        var current = books
        for index in stride(from: 0, to: current.count, by: 9) {
            let book = current[index]
            current[index] = try await writer.remote(account: "editor").save(
                SaveRequest(
                    id: book.id, title: "Zeta " + book.title, author: book.author, expectedRevision: book.revision))
        }
        try await expectExactSearches(try catalog.remote(account: "reader"), current)
    }

    @Test func aSnapshotOfAnotherCatalogIsRefused() async throws {
        let path = directory.path("mine.sqlite")
        let (catalog, books) = try makeCatalog(books: 120, path: path)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        // Another catalog with other books, same scope and sizes, and its (intact) snapshot.
        let otherPath = directory.path("theirs.sqlite")
        let other = try SQLiteCatalog.open(path: otherPath, create: true)
        try other.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        for index in 0..<120 where index % 10 != 9 {
            try other.addBook(NewBook(title: "Other book \(index)"), scope: "main")
        }
        #expect(try await other.remote(account: "editor").searchIndexReport().snapshotStored)
        var theirs = try SnapshotFile(catalog: otherPath)
        let mine = try SnapshotFile(catalog: path)
        theirs = SnapshotFile(path: mine.path, bytes: theirs.bytes)
        try theirs.save()

        let remote = try catalog.remote(account: "reader")
        #expect(try await remote.searchIndexReport().report.origin == .built)
        try await expectExactSearches(remote, books)
    }

    @Test func theDecoderRefusesEveryChangedByteAndEveryTruncation() async throws {
        let path = directory.path("probe.sqlite")
        let (catalog, books) = try makeCatalog(books: 150, path: path)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        let file = try SnapshotFile(catalog: path)
        let queries = ["a", "hist", "l'e", "al ro", "東", ""]
        // The intact file answers as the books say.
        let intact = try #require(SearchIndexSnapshotProbe.decodeAndSearch(file.bytes, queries: queries))
        for (text, ids) in zip(queries, intact) {
            let terms = SearchTerms(text)
            let expected = matches(of: terms, in: books)
            #expect(ids == expected.prefix(50).map(\.id), "\(text)")
        }
        // Every byte is covered by a checksum: any change is refused, at decode or where a search reads it.
        var refused = 0
        for at in stride(from: 0, to: file.bytes.count, by: max(1, file.bytes.count / 400)) {
            var changed = file.bytes
            changed[at] ^= 0x10
            #expect(SearchIndexSnapshotProbe.decodeAndSearch(changed, queries: queries) == nil, "byte \(at)")
            refused += 1
        }
        for length in stride(from: 0, to: file.bytes.count, by: max(1, file.bytes.count / 100)) {
            #expect(
                SearchIndexSnapshotProbe.decodeAndSearch(Array(file.bytes.prefix(length)), queries: queries) == nil,
                "length \(length)")
        }
        #expect(refused > 100)
    }
}

/// The slow part of the suite above (each of these takes seconds: large generated catalogs, many
/// damaged copies); the rest stays in the inner loop (`Scripts/test fast`).
@Suite(.tags(.slow)) struct SearchIndexSnapshotDamageTests: SearchIndexTesting {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// Every part, the stored prefixes' table and bitmaps (parts 11 and 12) included.
    @Test(arguments: 0..<13)
    func aSnapshotWithADamagedPartIsDetectedAndRebuilt(part: Int) async throws {
        try await expectDamageDetected("damaged-\(part)") { file in
            let range = file.part(part)
            file.bytes[(range.lowerBound + range.upperBound) / 2] ^= 0xA5
        }
    }

    /// The `SnapshotLoading` fuzz target found, in the first snapshot format, that a book
    /// count, id base or id width that no checksum covered crashed the loader (an overflow
    /// while sizing the arrays, ids out of range). This format checksums its header, so only a
    /// crafted file (checksums recomputed) can carry such numbers: it must be refused, not trusted.
    @Test(
        arguments: zip(
            [4, 4, 4, 5, 5, 7], [UInt64(Int.max), 1 << 60, UInt64.max, 0x7FFF_FFFF_FFFF_FF00, UInt64.max, 64]))
    func aForgedHeaderWithImpossibleNumbersIsRefused(word: Int, value: UInt64) async throws {
        try await expectDamageDetected("header-\(word)-\(value)") { file in
            file.bytes.withUnsafeMutableBytes {
                $0.storeBytes(of: value.littleEndian, toByteOffset: word * 8, as: UInt64.self)
            }
            file.reseal()
        }
    }

    @Test(arguments: [1, 2, 8, 9])
    func aTruncatedSnapshotIsDetectedAndRebuilt(fraction: Int) async throws {
        try await expectDamageDetected("truncated-\(fraction)") { file in
            file.bytes.removeLast(file.bytes.count - file.bytes.count * fraction / 10)
        }
    }

    /// Something other than a regular file of this user's where the snapshot file goes: a FIFO
    /// (which blocked every search for ever), a symlink to a good snapshot or to a device, a
    /// directory, another user's copy of the very file. Each is a damaged index: the remote
    /// answers exactly from a rebuilt index, stored again where a file can replace the thing.
    @Test(arguments: ["fifo", "symlink-to-snapshot", "symlink-to-device", "directory", "other-owner"])
    func aSnapshotThatIsNotARegularFileOfThisUsersIsRebuilt(kind: String) async throws {
        let path = directory.path("\(kind).sqlite")
        let (catalog, books) = try makeCatalog(books: 200, path: path)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        let snapshot = SearchIndexSnapshot.path(catalogPath: path, scope: "main")
        let aside = directory.path("\(kind)-aside")
        #expect(rename(snapshot, aside) == 0)
        switch kind {
        case "fifo": #expect(mkfifo(snapshot, 0o600) == 0)
        case "symlink-to-snapshot": #expect(symlink(aside, snapshot) == 0)
        case "symlink-to-device": #expect(symlink("/dev/zero", snapshot) == 0)
        case "directory": #expect(mkdir(snapshot, 0o700) == 0)
        default:
            #expect(rename(aside, snapshot) == 0)
            // Only root may give a file away; as another user the case has nothing to test.
            guard geteuid() == 0 else { return }
            #expect(chown(snapshot, 65_534, 65_534) == 0)
        }

        let remote = try catalog.remote(account: "reader")
        try await expectExactSearches(remote, books)
        let (report, stored) = try await remote.searchIndexReport()
        #expect(report.origin == .built, "\(kind): \(report)")
        // A directory cannot be replaced by a file; everything else is, by the rename that stores it.
        #expect(stored == (kind != "directory"), "\(kind)")
        try await expectExactSearches(remote, books)
    }
}

extension SearchIndexTesting {
    /// Stores a snapshot of 200 books, lets `damage` change its file, then checks that a new
    /// remote answers every query exactly and ends up on a rebuilt, stored index.
    fileprivate func expectDamageDetected(
        _ name: String, _ damage: (inout SnapshotFile) throws -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let path = directory.path("\(name).sqlite")
        let (catalog, books) = try makeCatalog(books: 200, path: path)
        #expect(
            try await catalog.remote(account: "editor").searchIndexReport().snapshotStored,
            sourceLocation: sourceLocation)
        var file = try SnapshotFile(catalog: path)
        let intact = file.bytes
        try damage(&file)
        #expect(file.bytes != intact, "the damage changed nothing", sourceLocation: sourceLocation)
        try file.save()

        let remote = try catalog.remote(account: "reader")
        try await expectExactSearches(remote, books, sourceLocation: sourceLocation)
        // Detected at load or at the first read of the damaged block: either way the index in
        // use now is a rebuilt one, stored again.
        let (report, stored) = try await remote.searchIndexReport()
        #expect(report.origin == .built && stored, "\(name): \(report)", sourceLocation: sourceLocation)
        try await expectExactSearches(remote, books, sourceLocation: sourceLocation)
        let next = try catalog.remote(account: "reader")
        #expect(try await next.searchIndexReport().report.origin == .loadedSnapshot, sourceLocation: sourceLocation)
        try await expectExactSearches(next, books, sourceLocation: sourceLocation)
    }
}

/// One search reads a stored prefix's bitmaps in place (`StoredPrefixes.View`), checking each
/// block as it first reads it: damage there is found as a search reads it. Slow: it takes
/// twenty thousand books for the bitmaps to lie in blocks of their own.
@Suite(.tags(.slow)) struct StoredPrefixDamageTests: SearchIndexTesting {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// A stored prefix's bitmaps are read where they lie in the mapped file, a stretch at a
    /// time (`StoredPrefixes.View`): each block is checked as a one-letter search first reads
    /// it, so a bit flipped in every prefix's first word is found, and nothing wrong is shown,
    /// by a remote for one search too (which reads no other copy of them).
    @Test func aStoredPrefixsBitmapThatFailsItsChecksumIsDetectedAndRebuilt() async throws {
        // Enough books that the bitmaps lie in blocks of their own, past those a load checks.
        let path = directory.path("prefix-bitmaps.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "reader", role: .reader, scope: "main"))
        var generator = GeneratedBooks(seed: 23)
        try catalog.insertBooks(generator.newBooks(20_000), scope: "main")
        let books = try committedBooks(path, scope: "main")
        #expect(try await catalog.remote(account: "reader").searchIndexReport().snapshotStored)
        var file = try SnapshotFile(catalog: path)
        let bitmaps = file.part(SearchIndexSnapshot.Part.prefixBitmaps.rawValue)
        let perPrefix = StoredPrefixes.bitmapsPerPrefix * 8 * ((file.word(4) + 63) / 64)
        // Not in the block the bitmaps begin in, which the load checks with the prefixes' table.
        let firstBlock = (bitmaps.lowerBound - file.dataStart) / MappedIndexMemory.blockSize
        for start in stride(from: bitmaps.lowerBound, to: bitmaps.upperBound, by: perPrefix)
        where (start - file.dataStart) / MappedIndexMemory.blockSize > firstBlock {
            file.bytes[start] ^= 0x04
        }
        try file.save()

        let remote = try catalog.remoteForOneCommand(account: "reader")
        #expect(try await remote.searchIndexReport().report.origin == .loadedSnapshot, "read at load")
        for text in ["a", "b", "e", "h", "m", "s", "t", "al", "the", "2", "al ro", "history of"] {
            try await expectExactPages(text, [(50, 0), (3, 0), (10, 100)], remote, books)
        }
        let (report, stored) = try await remote.searchIndexReport()
        #expect(report.origin == .built && stored, "\(report)")
    }
}
