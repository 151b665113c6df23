import Foundation
import Glibc
import TestTags
import Testing

/// A catalog path that names a device, a FIFO or a socket is not a catalog: every command
/// says so in one line and exits 3, at once, and leaves the thing untouched. (Before, a
/// device was "an empty file", `check` called `/dev/null` intact, and a FIFO failed with
/// "disk I/O error" or could hang.)
@Suite(.tags(.process)) struct NotARegularFileTests {
    @Test func aDeviceOrAFIFOIsRefusedByNameByEveryCommand() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let fifo = sandbox.path("catalog.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let books = try sandbox.write("books.csv", "title,author\nDune,Frank Herbert\n")
        let cases: [(path: String, kind: String)] = [
            ("/dev/null", "a character device"), ("/dev/zero", "a character device"), (fifo, "a FIFO"),
        ]
        for (path, kind) in cases {
            for arguments in [
                ["search", "x"], ["export"], ["history", "1"], ["check"], ["setup"], ["import", books],
            ] {
                let outcome = try sandbox.run(arguments + ["--db", path])
                #expect(outcome.status == 3, "\(arguments) \(path): \(outcome.status)")
                // Progress lines may come first; the failure is one line.
                let failures = outcome.errorLines.filter { $0.hasPrefix("bookshelf") }
                #expect(
                    failures.count == 1 && failures[0].contains("is not a regular file (it is \(kind))")
                        && failures[0].contains(path),
                    "\(arguments) \(path): \(outcome.errors)")
            }
        }
        var status = stat()
        #expect(stat(fifo, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO, "the FIFO is left as it was")
    }
}
