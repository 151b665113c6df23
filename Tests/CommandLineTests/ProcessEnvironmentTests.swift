import Foundation
import Testing

@testable import bookshelf

/// `bookshelf` reads its environment from `environ` itself (`ProcessEnvironment`): it must give
/// what Foundation's `ProcessInfo` gives.
@Suite struct ProcessEnvironmentTests {
    @Test func theProcessEnvironmentIsFoundations() {
        #expect(ProcessEnvironment.current() == ProcessInfo.processInfo.environment)
    }

    /// "=" inside a value stays in it; an entry without one, or not UTF-8, is skipped; a name
    /// given twice keeps its last value; an empty value is a value.
    @Test func entriesAreReadAsFoundationReadsThem() {
        let entries: [[CChar]] = [
            Array("A=1=2".utf8CString), Array("NO_EQUALS".utf8CString), Array("B=".utf8CString),
            Array("A=3".utf8CString), [0x43, 0x3D, -1, 0x00] /* "C=" and a byte that is not UTF-8 */,
            Array("PATH=/usr/bin".utf8CString),
        ]
        let copies = entries.map { entry in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: entry.count)
            copy.initialize(from: entry, count: entry.count)
            return copy
        }
        defer { copies.forEach { $0.deallocate() } }
        let environment = (copies.map { Optional($0) } + [nil]).withUnsafeBufferPointer {
            ProcessEnvironment.read($0.baseAddress!)
        }
        #expect(environment == ["A": "3", "B": "", "PATH": "/usr/bin"])
    }
}
