import BookshelfTestSupport
import Foundation
import TestTags
import Testing

/// A title of only spaces or invisible characters is refused as blank, in those words.
@Suite(.tags(.process)) struct BlankTitleCommandLineTests {
    @Test func editRefusesABlankTitleSayingItIsBlank() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        for title in ["   ", "\u{200B}", " \u{FEFF} "] {
            let result = try sandbox.run(["edit", "1", "--title", title, "--account", "alice", "--db", db])
            #expect(result.status == 2, "\(result.errors)")
            #expect(result.errors.contains("The title is blank"), "\(title.debugDescription): \(result.errors)")
        }
    }

    @Test func aBadFileIntoANewPathLeavesNoCatalog() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let file = try sandbox.write("bad.csv", "title\nDune\n\"never closed\n")
        let db = sandbox.path("new.sqlite")
        let result = try sandbox.run(["import", file, "--db", db])
        #expect(result.status == 1, "\(result.errors)")
        for suffix in ["", "-wal", "-shm", "-journal"] {
            #expect(!FileManager.default.fileExists(atPath: db + suffix), "\(db + suffix) was left behind")
        }
    }
}
