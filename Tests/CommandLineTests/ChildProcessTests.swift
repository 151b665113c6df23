import BookshelfTestSupport
import Foundation
import TestTags
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a child started for a test inherits. The tests run in parallel in one process, so a
/// descriptor one test holds open without close-on-exec would pass to a server another test
/// starts at that moment (a PostgreSQL cluster, a tmux server) and stay open there for its
/// whole life: a tmpfs that test then unmounts is "busy".
@Suite(.tags(.process)) struct ChildProcessTests {
    @Test func aChildInheritsOnlyItsStandardDescriptors() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        // Held as a careless open would hold it: no O_CLOEXEC.
        let held = open("/dev/null", O_RDONLY)
        try #require(held > 2)
        defer { close(held) }

        let output = directory.path("descriptors")
        let status = try ChildProcess.run(
            ["/bin/sh", "-c", "ls /proc/$$/fd; :"], output: output, errors: directory.path("errors"))
        #expect(status == 0)
        let descriptors = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").compactMap {
            Int32($0)
        }
        #expect(descriptors.contains(1))
        #expect(!descriptors.contains(held), "the child holds the test's descriptor \(held): \(descriptors)")
        #expect(descriptors.allSatisfy { $0 <= 2 }, "\(descriptors)")
    }
}
