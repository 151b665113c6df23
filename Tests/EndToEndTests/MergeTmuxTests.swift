import BookshelfTestSupport
import BookCatalog
import Foundation
import SQLiteCatalog
import TestTags
import Testing

/// Two people, two app processes, one catalog file: a save that meets someone else's newer
/// revision merges what does not overlap and shows what does.
@Suite(.serialized, .tags(.tmux)) struct MergeTmuxTests {
    /// Opens the one book in `pane` and replaces the focused field's last word with `word`.
    private func openAndEditTitle(_ pane: TmuxPane, book: BookRecord, lastWord word: String) throws {
        try pane.send("Enter")
        try pane.waitFor(text: "Edit book #\(book.id) · revision 1")
        try pane.send("C-w")
        try pane.type(word)
        try pane.waitFor(text: "Title     Quixotic Zebra \(word)")
    }

    @Test(.enabled(if: TmuxPane.shouldRun)) func aChangeOnlyTheOtherMadeIsMergedAndSaved() async throws {
        let catalog = try OrderingTmuxTests.Catalog()
        defer { catalog.sandbox.remove() }
        let alice = try catalog.app("alice")
        defer { alice.kill() }
        let bob = try catalog.app("bob")
        defer { bob.kill() }

        try openAndEditTitle(alice, book: catalog.book, lastWord: "Guide")
        // Bob changes only the author, and saves first.
        try bob.send("Enter")
        try bob.waitFor(text: "Edit book #\(catalog.book.id) · revision 1")
        try bob.send("Tab", "C-u")
        try bob.type("Bea Tester")
        try bob.send("Enter")
        try bob.waitFor(text: "Saved as revision 2.")

        try alice.send("Enter")
        let merged = try alice.waitFor(text: "Merged with revision 2 by bob: they changed the author.")
        #expect(merged.contains("Saved as revision 3."), "\(merged)")
        #expect(merged.contains("Author    Bea Tester"))
        #expect(!merged.contains("Conflict:"))
        #expect(
            try await catalog.stored()
                == BookRecord(
                    id: catalog.book.id, title: "Quixotic Zebra Guide", revision: 3,
                    author: "Bea Tester"))
        let history = try await SQLiteCatalog.open(path: catalog.db, create: false).remote(account: "alice").history(
            of: catalog.book.id)
        #expect(history.map(\.account) == ["alice", "bob", nil])
    }

    @Test(.enabled(if: TmuxPane.shouldRun)) func aFieldBothChangedShowsBaseTheirsAndYoursAndCtrlEEditsAMerge()
        async throws
    {
        let catalog = try OrderingTmuxTests.Catalog()
        defer { catalog.sandbox.remove() }
        let alice = try catalog.app("alice")
        defer { alice.kill() }
        let bob = try catalog.app("bob")
        defer { bob.kill() }

        try openAndEditTitle(alice, book: catalog.book, lastWord: "Atlas")
        try openAndEditTitle(bob, book: catalog.book, lastWord: "Almanac")
        try bob.send("Tab", "C-u")
        try bob.type("Bea Tester")
        try bob.send("Enter")
        try bob.waitFor(text: "Saved as revision 2.")

        try alice.send("Enter")
        let banner = try alice.waitFor(text: "Both changed the title:")
        #expect(banner.contains("Conflict: someone else saved revision 2"), "\(banner)")
        #expect(banner.contains("Base:   Quixotic Zebra Handbook\n"))
        #expect(banner.contains("Theirs: Quixotic Zebra Almanac\n"))
        #expect(banner.contains("Yours:  Quixotic Zebra Atlas\n"))
        #expect(banner.contains("Ctrl-E edit a merge"), "the keys wrap in a narrow pane")
        #expect(try await catalog.stored().title == "Quixotic Zebra Almanac", "nothing was overwritten")

        try alice.send("C-e")
        let merging = try alice.waitFor(text: "Edit book #\(catalog.book.id) · revision 2 · modified")
        #expect(merging.contains("Title     Quixotic Zebra Atlas"), "\(merging)")
        #expect(merging.contains("Author    Bea Tester"), "their author is merged in")
        try alice.type(" and Almanac")
        try alice.send("Enter")
        try alice.waitFor(text: "Saved as revision 3.")
        #expect(
            try await catalog.stored()
                == BookRecord(
                    id: catalog.book.id, title: "Quixotic Zebra Atlas and Almanac",
                    revision: 3, author: "Bea Tester"))
    }
}
