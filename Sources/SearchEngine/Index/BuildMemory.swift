import CMemoryAccess
import Foundation

/// Where an index build keeps its large arrays: the forward index, the postings, the packed
/// ids and offsets, and pass 1's provisional copy of every book's tokens, about three times the
/// finished index at once (`bookshelf-bench search --count 10000000` reports the build's peak).
///
/// With a directory, each array is a file of its own there, unlinked as soon as it is made and
/// mapped shared. Its pages then belong to the page cache, as the stored index's do once it is
/// mapped: while memory is plentiful they stay in memory and cost what anonymous pages cost,
/// and under pressure the kernel can write them out and take them back, which it cannot do
/// with anonymous memory on a machine without swap. Nothing is left behind if the process
/// dies: the files have no name. Where no file can be made (a read-only directory), the
/// arrays are ordinary allocations.
package struct BuildMemory: Sendable {
    /// Where the files go; nil for ordinary allocations.
    package let directory: String?

    package static let anonymous = BuildMemory(directory: nil)

    /// Files beside the catalog at `catalogPath`, on the same file system as its stored index.
    package init(besideCatalog catalogPath: String) {
        directory = folder(holding: catalogPath)
    }

    /// Files in `folder` (a source's `scratchFolder`), or ordinary allocations when it is nil.
    package init(folder: String?) { directory = folder }

    private init(directory: String?) { self.directory = directory }

    /// A zeroed buffer of `count` elements for the builder to fill, and the array that will view it.
    package func array<Element: BitwiseCopyable>(of: Element.Type, count: Int)
        -> (fill: UnsafeMutableBufferPointer<Element>, array: IndexArray<Element>)
    {
        let memory = zeroed(byteCount: count * MemoryLayout<Element>.stride)
        let typed = UnsafeMutableBufferPointer(rebasing: memory.bytes.bindMemory(to: Element.self)[0..<count])
        return (typed, IndexArray(buffer: UnsafeBufferPointer(typed), memory: memory, offsetInMemory: 0))
    }

    /// `byteCount` zeroed bytes: a new file's pages, or an allocation.
    package func zeroed(byteCount: Int) -> OwnedIndexMemory {
        scratchFile(byteCount).map(OwnedIndexMemory.init) ?? OwnedIndexMemory(byteCount: byteCount)
    }

    /// Bytes appended as varints, growing as needed (pass 1's copy of the books' tokens).
    package func growingBytes(capacity: Int) -> GrowingBytes {
        scratchFile(capacity).map { GrowingBytes($0) } ?? GrowingBytes(allocated: capacity)
    }

    /// The same in a scratch file only: nil where none can be made, and full (`GrowingBytes.isFull`)
    /// once the file cannot grow, rather than moved into the process's own memory.
    package func growingFileBytes(capacity: Int) -> GrowingBytes? {
        scratchFile(capacity).map { GrowingBytes($0, mayMoveToMemory: false) }
    }

    /// A new scratch file of `byteCount` bytes, when there is a directory and it can take one.
    private func scratchFile(_ byteCount: Int) -> ScratchFile? {
        directory.flatMap { ScratchFile(in: $0, byteCount: byteCount) }
    }
}

/// A file with no name in a directory, mapped shared for reading and writing; its pages are
/// zero until written. Closed and unmapped on release, when its blocks are freed.
package final class ScratchFile {
    private let descriptor: Int32
    package private(set) var bytes: UnsafeMutableRawBufferPointer

    package init?(in directory: String, byteCount: Int) {
        var template = Array((directory + "/.bookshelf-build-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return nil }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.descriptor = descriptor
        bytes = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        guard resize(to: byteCount) else {
            close(descriptor)
            return nil
        }
    }

    /// Makes the file `byteCount` long and maps all of it; what was written stays. False,
    /// with the old mapping kept, when the file system refuses.
    package func resize(to byteCount: Int) -> Bool {
        let length = max(byteCount, 1)
        // Blocks are reserved now: a page of a sparse file that the disk has no room for would
        // stop the process (SIGBUS) when first written, instead of failing here.
        guard posix_fallocate(descriptor, 0, off_t(length)) == 0 else { return false }
        #if os(Linux)
            // Grown in place where it can be: what was written stays mapped (`shim_mremap_maymove`).
            // With a new mapping, each first touch of a page already written is a page fault again
            // ("mur" at ten million books: `keys --count 10000000 --no-index`).
            if let old = bytes.baseAddress, let start = shim_mremap_maymove(old, bytes.count, length),
                start != MAP_FAILED
            {
                bytes = UnsafeMutableRawBufferPointer(start: start, count: length)
                return true
            }
        #endif
        guard let start = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), start != MAP_FAILED
        else {
            return false
        }
        if let old = bytes.baseAddress { munmap(old, bytes.count) }
        bytes = UnsafeMutableRawBufferPointer(start: start, count: length)
        return true
    }

    deinit {
        if let start = bytes.baseAddress { munmap(start, bytes.count) }
        close(descriptor)
    }
}

/// Bytes written one varint or run after another, in a scratch file or an allocation, growing by
/// doubling. A scratch file grows in place: the mapping is remade over the longer file and
/// nothing is copied. One the file system cannot lengthen (the disk is full) is copied into
/// an allocation, and the bytes live on there.
package final class GrowingBytes {
    private var file: ScratchFile?
    private var allocated: UnsafeMutableRawBufferPointer?
    package private(set) var count = 0
    private var mayMoveToMemory = true
    /// True once a file that may not move to memory could not grow: appends are dropped.
    package private(set) var isFull = false

    package init(_ file: ScratchFile, mayMoveToMemory: Bool = true) {
        self.file = file
        self.mayMoveToMemory = mayMoveToMemory
    }

    package init(allocated capacity: Int) { allocated = .allocate(byteCount: max(capacity, 1), alignment: 16) }

    deinit { allocated?.deallocate() }

    private var storage: UnsafeMutableRawBufferPointer { file?.bytes ?? allocated! }

    package func append(_ value: UInt32) {
        if count + 5 > storage.count && !grow(toHold: 5) { return }
        var offset = count
        VarInt.write(value, to: storage.bindMemory(to: UInt8.self), at: &offset)
        count = offset
    }

    package func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        if count + bytes.count > storage.count && !grow(toHold: bytes.count) { return }
        UnsafeMutableRawBufferPointer(rebasing: storage[count..<count + bytes.count]).copyMemory(
            from: UnsafeRawBufferPointer(bytes))
        count += bytes.count
    }

    package func withUnsafeBufferPointer<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        try body(UnsafeBufferPointer(rebasing: UnsafeBufferPointer(storage.bindMemory(to: UInt8.self))[0..<count]))
    }

    /// False, with `isFull` set, when the file cannot grow and may not move to memory.
    private func grow(toHold more: Int) -> Bool {
        guard !isFull else { return false }
        let capacity = max(storage.count * 2, count + more)
        if let file, file.resize(to: capacity) { return true }
        if file != nil && !mayMoveToMemory {
            isFull = true
            return false
        }
        let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        larger.copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[0..<count]))
        allocated?.deallocate()
        allocated = larger
        file = nil
        return true
    }
}
