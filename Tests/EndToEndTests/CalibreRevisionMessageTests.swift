import BookCatalog
import BookshelfModel
import BookshelfTestSupport
import CSQLite
import Foundation
import SQLiteCatalog
import Testing

/// What the model tells a user about a revision of a Calibre library's book (issue 62, ask 4:
/// "what a user sees for a revision must mean something"): a book's revision is calibre's
/// `last_modified` in microseconds, so a message says when the book changed, never the number.
/// The model runs over a real library (`CalibreConnector`), and calibredb changes the book.
extension CalibreInPlaceTests {
    /// Book `id`'s `last_modified` as calibre stored it, to the second ("2026-12-07 14:02:07"):
    /// calibre writes UTC ("2026-12-07 14:02:07.123456+00:00").
    private func storedStamp(of id: Int) throws -> String {
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        try #require(sqlite3_open_v2(library + "/metadata.db", &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK)
        var statement: OpaquePointer?
        try #require(
            sqlite3_prepare_v2(handle, "SELECT last_modified FROM books WHERE id = \(id)", -1, &statement, nil)
                == SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        try #require(sqlite3_step(statement) == SQLITE_ROW)
        let text = String(cString: try #require(sqlite3_column_text(statement, 0)))
        #expect(text.hasSuffix("+00:00"), "\(text)")
        return String(text.prefix(19))
    }

    /// Waits for every request the model has under way (new ones started by those included),
    /// a bounded number of rounds.
    @MainActor
    private func settle(_ model: BookshelfModel) async {
        for _ in 0..<50 {
            let running = model.runningRequests.filter { $0 > 0 }
            guard !running.isEmpty else { return }
            for request in running { await model.finished(request: request) }
        }
    }

    @MainActor
    @Test func aMergeWithWhatCalibreSavedSaysWhenCalibreChangedTheBook() async throws {
        defer { sandbox.remove() }
        let store = try CalibreLibraryStore.open(path: library, environment: cache)
        let model = BookshelfModel(
            connector: CalibreConnector(store: store, stateFolder: sandbox.path("state")), account: store.account.name)
        await model.finished(request: try #require(model.start()))
        await settle(model)
        await model.finished(request: try #require(model.open(bookID: 2)))
        await settle(model)
        #expect(model.state.editor?.base?.title == "Good Omens")

        // calibre saves the book's publisher while it is open here; here its title is changed.
        let calibre = try calibredb(["set_metadata", "2", "--field", "publisher:Corgi"])
        #expect(calibre.status == 0, "\(calibre.output)")
        let changedInCalibre = try storedStamp(of: 2)
        model.setDraft(.title, to: "Good Omens, Annotated")
        await model.finished(request: try #require(model.save()))
        await settle(model)

        #expect(
            model.state.message
                == "Merged with the book as changed \(changedInCalibre) UTC by someone else: they changed the publisher."
        )
        let saved = try await store.remote().load(id: 2)
        #expect(saved.title == "Good Omens, Annotated" && saved.details.publisher == "Corgi")
    }
}
