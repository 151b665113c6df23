import BookshelfTestSupport
import Foundation
import TestTags
import Testing

/// A catalog its user cannot write, met as that user: a 0444 file in a 0555 directory, the
/// commands run as `nobody` (root would write it all the same). Reading works; editing says why not.
@Suite(
    .enabled(
        if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser"),
        "needs root, to run the commands as another user through runuser"), .tags(.process))
struct ReadOnlyCatalogCommandLineTests {
    @Test func aCatalogTheUserCannotWriteIsSearchedExportedAndItsHistoryRead() throws {
        let sandbox = try BookshelfProcess()
        defer {
            chmod(sandbox.path("shelf"), 0o755)
            sandbox.remove()
        }
        // The build folder must be reachable for nobody: the test only runs where it is.
        let binary = try #require(BookshelfProcess.binary)
        let folder = sandbox.path("shelf")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let db = folder + "/catalog.sqlite"
        #expect(try sandbox.run(["setup", "--db", db]).status == 0)
        let expected = try sandbox.run(["search", "rome", "--db", db])
        chmod(sandbox.directory.path, 0o755)
        chmod(db, 0o444)
        chmod(folder, 0o555)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()

        func asNobody(_ arguments: [String]) throws -> BookshelfProcess.Outcome {
            let (output, errors) = (
                sandbox.path("stdout-\(UUID().uuidString)"), sandbox.path("stderr-\(UUID().uuidString)")
            )
            var environment = ProcessInfo.processInfo.environment
            for name in ["BOOKSHELF_DB", "XDG_DATA_HOME", "XDG_CACHE_HOME"] { environment[name] = nil }
            environment["HOME"] = sandbox.path("home")
            let ending = try ChildProcess.runToEnd(
                ["/usr/sbin/runuser", "-u", "nobody", "--", binary.path] + arguments + ["--db", db],
                input: "/dev/null", output: output, errors: errors, environment: environment)
            return BookshelfProcess.Outcome(
                status: ending.status, output: try String(contentsOfFile: output, encoding: .utf8),
                errors: try String(contentsOfFile: errors, encoding: .utf8))
        }
        let search = try asNobody(["search", "rome"])
        #expect(search.status == 0 && search.output == expected.output, "\(search.errors)")
        let export = try asNobody(["export"])
        #expect(export.status == 0 && export.outputLines.count > 1_000, "\(export.errors)")
        let history = try asNobody(["history", "1"])
        #expect(history.status == 0 && history.outputLines.count == 1, "\(history.errors)")
        let check = try asNobody(["check"])
        #expect(check.status == 0, "\(check.output) \(check.errors)")
        let edit = try asNobody(["edit", "1", "--title", "Changed"])
        #expect(edit.status == 3 && edit.errors.contains("the catalog is read-only at \(db)"), "\(edit.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == files)
    }
}
