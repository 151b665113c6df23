import BookCatalog
import CatalogSimulation
import Foundation
import Testing
@testable import BookshelfModel

/// A long session switches accounts again and again. Each account session owns a remote (for
/// SQLite: a connection with its page cache, and the search index), so every session the app
/// leaves must be freed with it; otherwise memory grows with every switch.
@MainActor
@Suite struct LongSessionTests {
    @Test("sessions left by account switches are freed, with their remotes")
    func sessionsLeftBehindAreFreed() async throws {
        let catalog = MemoryCatalog()
        for name in ["alice", "bob"] { catalog.addAccount(Account(name: name, role: .editor, scope: "main")) }
        for number in 1...20 { _ = catalog.addBook(title: "Book \(number)", scope: "main") }
        let connector = SessionCountingConnector<MemoryBookRemote>(MemoryCatalogConnector(catalog: catalog))
        let model = BookshelfModel(connector: connector, account: "alice")
        await settle(model, model.start())
        let switches = 12
        for turn in 1...switches {
            // Each session searches, opens a book and saves it, so it has cached and seen
            // records, a history of requests and a finished save when it is left.
            await settle(model, model.setQuery("book \(turn)"))
            await settle(model, model.openSelected())
            model.setDraft(.title, to: "Book \(turn) revised")
            await settle(model, model.save())
            #expect(model.state.editor?.outcome == .saved(revision: 2))
            model.closeEditor()
            await settle(model, model.setQuery(""))
            await settle(model, model.requestAccountSwitch(to: turn % 2 == 1 ? "bob" : "alice"))
        }
        #expect(connector.opened == switches + 1, "every switch opened a session")
        #expect(connector.alive == 1, "only the current session's remote is still alive")
    }

    private func settle(_ model: BookshelfModel, _ request: Int?) async {
        if let request { await model.finished(request: request) }
        while let next = model.runningRequests.first { await model.finished(request: next) }
    }
}
