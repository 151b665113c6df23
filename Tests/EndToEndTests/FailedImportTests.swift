import BookshelfTestSupport
import Foundation
import TestTags
import Testing

/// An import that fails while it adds books changes nothing: into a path that held no catalog,
/// it leaves no file behind, as its "nothing imported" message says.
@Suite(.tags(.process)) struct FailedImportTests {
    @Test func anImportThatFailsWhileAddingLeavesNoNewCatalog() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let binary = try #require(BookshelfProcess.binary)
        // 20,000 books are about 2 MB of catalog; the starter catalog alone is about 50 KB.
        var csv = "title,author\n"
        for number in 0..<20_000 { csv += "Book number \(number) with a longish title,Author \(number)\n" }
        let file = try sandbox.write("books.csv", csv)
        let db = sandbox.path("new.sqlite")
        // A file size limit of 200 KB makes the disk "full" part-way through adding the books
        // (with SIGXFSZ ignored, a write past the limit fails with EFBIG instead of killing).
        let script = "trap '' XFSZ; ulimit -f 200; exec \"$0\" import --db \"$1\" \"$2\""
        let errors = sandbox.path("errors")
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = sandbox.path("home")
        let ending = try ChildProcess.runToEnd(
            ["/bin/bash", "-c", script, binary.path, db, file],
            errors: errors, environment: environment)
        let message = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(ending.status == 3, "\(message)")
        #expect(message.contains("nothing imported"), "\(message)")
        let left = try FileManager.default.contentsOfDirectory(atPath: sandbox.directory.path)
            .filter { $0.hasPrefix("new.sqlite") }
        #expect(left.isEmpty, "left behind: \(left)")
    }
}
