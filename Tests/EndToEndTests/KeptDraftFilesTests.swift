import BookCatalog
import BookshelfModel
import Foundation
import Testing

@testable import bookshelf

#if canImport(Glibc)
    import Glibc
#endif

/// The files that keep drafts between runs: private, atomic, and read as files anyone could
/// have written (damaged, huge, not a file at all, another account's).
@MainActor
@Suite struct KeptDraftFilesTests {
    let folder: String
    let base = BookRecord(id: 7, title: "Dune", revision: 3, author: "Frank Herbert")
    var draft: KeptDraft {
        KeptDraft(
            account: "alice", base: base,
            draft: BookDraft(title: "Dune", author: "Frank Herbert", tags: "sf", notes: "Line one\nback\\slash\r"))
    }

    init() throws {
        folder =
            FileManager.default.temporaryDirectory.appendingPathComponent("kept-drafts-\(UUID().uuidString)")
            .path
    }

    func keeper(_ catalog: String = "sqlite /books/catalog.sqlite") -> KeptDraftFiles {
        KeptDraftFiles(directory: folder + "/state/bookshelf/drafts", catalog: catalog)
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }

    func names() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/state/bookshelf/drafts")) ?? []).sorted()
    }

    @Test func theFolderFollowsXDGStateHome() {
        #expect(
            KeptDraftFiles.directory(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]) == "/s/bookshelf/drafts")
        #expect(
            KeptDraftFiles.directory(environment: ["XDG_STATE_HOME": "relative", "HOME": "/h"])
                == "/h/.local/state/bookshelf/drafts", "a relative XDG_STATE_HOME is ignored, as the spec says")
        #expect(KeptDraftFiles.directory(environment: ["HOME": "/h"]) == "/h/.local/state/bookshelf/drafts")
        #expect(KeptDraftFiles.directory(environment: [:]) == nil)
    }

    @Test func aKeptDraftComesBackWholeFromAPrivateFile() throws {
        defer { remove() }
        let keeper = keeper()
        try keeper.keep(draft)
        #expect(keeper.kept(account: "alice") == KeptDraftsFound(drafts: [draft]))
        var status = stat()
        #expect(stat(keeper.path(account: "alice", bookID: 7), &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(stat(keeper.directory, &status) == 0 && status.st_mode & 0o777 == 0o700)
        // Written again, it replaces the first, and no temporary file is left behind.
        let changed = KeptDraft(account: "alice", base: base, draft: BookDraft(title: "Dune Messiah", author: "F. H."))
        try keeper.keep(changed)
        #expect(keeper.kept(account: "alice").drafts == [changed])
        #expect(names() == [URL(fileURLWithPath: keeper.path(account: "alice", bookID: 7)).lastPathComponent])
        try keeper.remove(account: "alice", bookID: 7)
        #expect(names().isEmpty && keeper.kept(account: "alice") == KeptDraftsFound())
    }

    @Test func anotherAccountOrCatalogNeverSeesTheDraft() throws {
        defer { remove() }
        try keeper().keep(draft)
        #expect(keeper().kept(account: "bob") == KeptDraftsFound())
        #expect(keeper("sqlite /other.sqlite").kept(account: "alice") == KeptDraftsFound())
        // alice's file copied under bob's name: its content says alice, so bob is not shown it,
        // and it is left where it is.
        let bobs = keeper().path(account: "bob", bookID: 7)
        try FileManager.default.copyItem(atPath: keeper().path(account: "alice", bookID: 7), toPath: bobs)
        #expect(keeper().kept(account: "bob") == KeptDraftsFound())
        #expect(FileManager.default.fileExists(atPath: bobs))
    }

    /// A damaged file is reported and set aside under another name, never deleted.
    @Test(arguments: [
        ("garbage", Array("not a draft\n".utf8), "not a kept draft of this version"),
        ("invalid UTF-8", Array("bookshelf kept draft 1\ncatalog ".utf8) + [0xFF, 0x0A], "not UTF-8 text"),
        (
            "cut short", Array("bookshelf kept draft 1\ncatalog sqlite /books/catalog.sqlite\naccount alice\n".utf8),
            "no base-title"
        ),
        ("an unknown escape", Array("bookshelf kept draft 1\ncatalog a\\q\n".utf8), "an unknown escape"),
    ])
    func aDamagedFileIsSetAsideAndSaid(what: String, bytes: [UInt8], reason: String) throws {
        defer { remove() }
        let keeper = keeper()
        try keeper.keep(draft)
        let file = keeper.path(account: "alice", bookID: 7)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let found = keeper.kept(account: "alice")
        #expect(found.drafts.isEmpty, "\(what)")
        #expect(found.problems == ["A kept draft could not be read (\(reason)); it was set aside as \(file).damaged."])
        #expect(try Data(contentsOf: URL(fileURLWithPath: file + ".damaged")) == Data(bytes), "kept as it was")
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func aFileTooLargeToBeADraftIsNotReadWhole() throws {
        defer { remove() }
        let keeper = keeper()
        try keeper.keep(draft)
        let file = keeper.path(account: "alice", bookID: 7)
        var text = KeptDraftFile(catalog: keeper.catalog, owner: 0, draft: draft).text
        text += "draft-padding " + String(repeating: "x", count: KeptDraftFile.maximumBytes) + "\n"
        try text.write(toFile: file, atomically: false, encoding: .utf8)
        let read = try KeptDraftFiles.read(file)
        #expect(read.count == KeptDraftFile.maximumBytes + 1, "one byte past the limit tells it is too large")
        #expect(
            keeper.kept(account: "alice").problems == [
                "A kept draft could not be read (larger than \(KeptDraftFile.maximumBytes) bytes); it was set aside as \(file).damaged."
            ])
    }

    /// A FIFO would block a read for ever; a link could point anywhere.
    @Test func somethingThatIsNotARegularFileIsSetAsideWithoutBeingRead() throws {
        defer { remove() }
        let keeper = keeper()
        try keeper.keep(draft)
        let file = keeper.path(account: "alice", bookID: 7)
        unlink(file)
        #expect(mkfifo(file, 0o600) == 0)
        #expect(
            keeper.kept(account: "alice").problems == [
                "A kept draft could not be read (not a regular file); it was set aside as \(file).damaged."
            ])
        #expect(symlink("/etc/passwd", file) == 0)
        let problems = keeper.kept(account: "alice").problems
        #expect(problems.count == 1 && problems[0].hasSuffix("it was set aside as \(file).damaged-2."), "\(problems)")
    }

    @Test func aDraftWhoseBaseIsNotAValidBookIsRefused() throws {
        defer { remove() }
        let keeper = keeper()
        try keeper.keep(draft)
        let file = keeper.path(account: "alice", bookID: 7)
        let text = try String(contentsOfFile: file, encoding: .utf8)
            .replacingOccurrences(of: "\nbase-year \n", with: "\nbase-year 99999\n")
        try text.write(toFile: file, atomically: false, encoding: .utf8)
        #expect(
            keeper.kept(account: "alice").problems.first?.contains("the revision it is based on is not a valid book")
                == true)
    }

    /// Another run that still has the draft open keeps it: it is not offered twice.
    @Test func theDraftOfARunStillGoingIsNotOffered() throws {
        defer { remove() }
        let keeper = keeper()
        try keeper.keep(draft)
        let file = keeper.path(account: "alice", bookID: 7)
        // Process 1 always runs.
        try KeptDraftFile(catalog: keeper.catalog, owner: 1, draft: draft).text
            .write(toFile: file, atomically: false, encoding: .utf8)
        #expect(keeper.kept(account: "alice") == KeptDraftsFound())
        #expect(FileManager.default.fileExists(atPath: file))
    }
}
