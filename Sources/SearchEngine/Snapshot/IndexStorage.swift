import Foundation
import Locking

/// Memory that outlives the `IndexArray`s that view it: an allocation of this process or a
/// mapped snapshot file. Immutable once the arrays are made, hence shareable.
package protocol IndexMemory: AnyObject, Sendable {
    /// Confirms that the bytes at `range` (offsets into the memory) are intact before they are
    /// read; a mapped file checks them against its checksums the first time.
    func verify(_ range: Range<Int>) throws(SearchIndexDamage)
}

/// A stored index that failed a check while it was read: the snapshot is damaged or not
/// this catalog's, and must be rebuilt rather than trusted.
package struct SearchIndexDamage: Error, CustomStringConvertible, Equatable {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// A fixed-size array of plain values in memory that may be a mapped file (read in place) or
/// an allocation of this process. Reading never copies; there is no writing.
package struct IndexArray<Element: BitwiseCopyable>: RandomAccessCollection, @unchecked Sendable {
    // Safe to share: the memory is never written after the array is made, and `memory`
    // keeps it alive.
    package let buffer: UnsafeBufferPointer<Element>
    package let memory: any IndexMemory
    /// Where `buffer` starts in `memory`, for `verify`.
    package let offsetInMemory: Int

    package init(buffer: UnsafeBufferPointer<Element>, memory: any IndexMemory, offsetInMemory: Int) {
        self.buffer = buffer
        self.memory = memory
        self.offsetInMemory = offsetInMemory
    }

    /// Copies `array` into memory of its own (for arrays built by appending).
    package init(copying array: [Element]) {
        let owned = OwnedIndexMemory(byteCount: array.count * MemoryLayout<Element>.stride)
        let typed = owned.bytes.bindMemory(to: Element.self)
        _ = typed.initialize(from: array)
        self.init(buffer: UnsafeBufferPointer(typed), memory: owned, offsetInMemory: 0)
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { buffer.count }
    package var byteCount: Int { buffer.count * MemoryLayout<Element>.stride }

    @inline(__always)
    package subscript(index: Int) -> Element { buffer[index] }

    package func withUnsafeBufferPointer<T>(_ body: (UnsafeBufferPointer<Element>) throws -> T) rethrows -> T {
        try body(buffer)
    }
    package func withUnsafeBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try body(UnsafeRawBufferPointer(buffer))
    }

    /// Confirms the elements at `range` are intact (see `IndexMemory.verify`).
    package func verify(_ range: Range<Int>) throws(SearchIndexDamage) {
        let stride = MemoryLayout<Element>.stride
        try memory.verify(offsetInMemory + range.lowerBound * stride..<offsetInMemory + range.upperBound * stride)
    }

    package func verifyAll() throws(SearchIndexDamage) { try verify(0..<count) }
}

/// Memory the builder writes once, before any array views it: an allocation of this process,
/// or the pages of a scratch file (`BuildMemory`).
package final class OwnedIndexMemory: IndexMemory, @unchecked Sendable {
    // Written only by the code that made it, before the arrays that view it are shared.
    package let bytes: UnsafeMutableRawBufferPointer
    /// Holds the file's mapping; nil for an allocation.
    private let file: ScratchFile?

    /// Zeroed memory of this process.
    package init(byteCount: Int) {
        bytes = .allocate(byteCount: max(byteCount, 1), alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
        file = nil
    }

    /// A scratch file's pages (zero until written).
    package init(_ file: ScratchFile) {
        bytes = file.bytes
        self.file = file
    }

    deinit { if file == nil { bytes.deallocate() } }

    package func verify(_ range: Range<Int>) throws(SearchIndexDamage) {}
}

/// Bytes handed over to the index: a mapped file, or an allocation. Given back on release.
package final class SnapshotBytes: @unchecked Sendable {
    // Never written through; released once, in deinit.
    package let bytes: UnsafeRawBufferPointer
    private let ownership: Ownership

    package enum Ownership {
        /// `mmap`ed: unmapped on release.
        case mapped
        /// `UnsafeMutableRawBufferPointer.allocate`d: deallocated.
        case allocated
    }

    package init(_ bytes: UnsafeRawBufferPointer, ownership: Ownership) {
        self.bytes = bytes
        self.ownership = ownership
    }

    deinit {
        guard let base = bytes.baseAddress else { return }
        switch ownership {
        case .mapped: SnapshotUnmapping.unmap(base, bytes.count)
        case .allocated: base.deallocate()
        }
    }
}

/// Unmaps released snapshot files on a queue of its own, not on the thread that released them.
/// The index a replacement takes over from was mapped from a file the replacement's has since
/// been renamed over: its last mapping is the file's last reference, and unmapping it takes all
/// of the file's pages out of the page cache, some 25 to 45 ms at a million books. The thread
/// that released it was the one answering the key that installed the replacement (`perf sched
/// record` of `bookshelf-bench bulk`: `truncate_inode_pages_range` under the app's search, a key
/// late each time the app's index was replaced during another program's batch). Nothing reads
/// a released snapshot, so when it is unmapped matters to no one.
package enum SnapshotUnmapping {
    package static let queue = DispatchQueue(label: "bookshelf index unmapping", qos: .utility)

    static func unmap(_ start: UnsafeRawPointer, _ length: Int) {
        let address = UInt(bitPattern: start)
        queue.async { munmap(UnsafeMutableRawPointer(bitPattern: address), length) }
    }
}

/// A snapshot file mapped read-only. Its data is covered by one checksum per block; a block
/// is checked the first time anything in it is read, so a search reads (and keeps resident)
/// only the parts of the file it needs, and never uses a byte that failed its checksum.
package final class MappedIndexMemory: IndexMemory, @unchecked Sendable {
    package static let blockSize = 1 << 16

    package let file: SnapshotBytes
    private var bytes: UnsafeRawBufferPointer { file.bytes }
    /// Where the checked area starts; blocks are counted from there.
    private let dataStart: Int
    /// Inside `file`.
    private let blockChecksums: UnsafeBufferPointer<UInt64>
    private let checked: Locked<[UInt64]>

    package init(file: SnapshotBytes, dataStart: Int, blockChecksums: UnsafeBufferPointer<UInt64>) {
        self.file = file
        self.dataStart = dataStart
        self.blockChecksums = blockChecksums
        checked = Locked([UInt64](repeating: 0, count: (blockChecksums.count + 63) / 64))
    }

    package static func blockCount(dataBytes: Int) -> Int { (dataBytes + blockSize - 1) / blockSize }

    package func verify(_ range: Range<Int>) throws(SearchIndexDamage) {
        guard !range.isEmpty else { return }
        guard range.lowerBound >= dataStart, range.upperBound <= bytes.count else {
            throw SearchIndexDamage("a read outside the snapshot's data")
        }
        let first = (range.lowerBound - dataStart) / Self.blockSize
        let last = (range.upperBound - 1 - dataStart) / Self.blockSize
        let failed = checked.withLock { checked -> Int? in
            for block in first...last where checked[block >> 6] & (1 << UInt64(block & 63)) == 0 {
                let start = dataStart + block * Self.blockSize
                let end = min(start + Self.blockSize, bytes.count)
                guard
                    SearchIndexSnapshot.checksum(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                        == blockChecksums[block]
                else { return block }
                checked[block >> 6] |= 1 << UInt64(block & 63)
            }
            return nil
        }
        if let failed { throw SearchIndexDamage("block \(failed) of the snapshot fails its checksum") }
    }
}
