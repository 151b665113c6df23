import Foundation
import Testing

@testable import SearchEngine

#if canImport(Glibc)
    import Glibc
#endif

/// A released snapshot file is unmapped on the unmapping queue, not by the thread that released
/// it: that unmapping can take a whole file's pages out of the page cache (`SnapshotUnmapping`).
@Suite struct SnapshotUnmappingTests {
    @Test func aReleasedSnapshotIsUnmappedOnTheQueueNotByTheThreadReleasingIt() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("unmapping-\(UUID().uuidString)").path
        let length = 4 * 65_536
        #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: length)))
        defer { unlink(path) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        let address = try #require(mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0))
        close(descriptor)
        try #require(address != MAP_FAILED)

        SnapshotUnmapping.queue.suspend()
        do {
            let file = SnapshotBytes(UnsafeRawBufferPointer(start: address, count: length), ownership: .mapped)
            #expect(file.bytes.load(fromByteOffset: length - 1, as: UInt8.self) == 7)
        }
        #expect(Self.isMapped(address, length), "released, but still mapped until the queue runs")
        SnapshotUnmapping.queue.resume()
        SnapshotUnmapping.queue.sync {}
        #expect(!Self.isMapped(address, length))
    }

    /// Whether the pages at `address` are mapped: `mincore` fails with ENOMEM where they are not.
    private static func isMapped(_ address: UnsafeMutableRawPointer, _ length: Int) -> Bool {
        var residency = [UInt8](repeating: 0, count: (length + 4_095) / 4_096)
        return mincore(address, length, &residency) == 0
    }
}
