import BookCatalog
import BookshelfModel
import CatalogSimulation
import Testing
import TerminalUI
@testable import BookshelfUI

/// The whole app as the terminal runs it (bytes in, frames out, the session's wiring between
/// them) on the memory backend: no tty, and nothing waits for a clock, only for frames.
@MainActor
@Suite("Terminal session")
struct TerminalSessionTests {
    @Test("typed bytes reach the search and the answer is drawn by the event loop")
    func typingSearchesThroughTheEventLoop() async {
        let catalog = MemoryCatalog()
        catalog.addAccount(Account(name: "alice", role: .editor, scope: "main"))
        _ = catalog.addBook(title: "Roman Gardens", author: "Anna Green", scope: "main")
        _ = catalog.addBook(title: "War and Peace", author: "Leo Tolstoy", scope: "main")
        let backend = MemoryTerminalBackend(size: TerminalSize(rows: 12, columns: 80))
        let terminal = Terminal(backend: backend)
        let model = BookshelfModel(connector: MemoryCatalogConnector(catalog: catalog), account: "alice")
        let app = BookshelfApp(model: model, store: StoreInfo(kind: "Memory", location: "test"), size: terminal.size)
        let session = TerminalSession(terminal: terminal, app: app)
        session.start()
        #expect(backend.isInputStarted)

        backend.send("garden")
        // Every effect the keys started (connecting, searching) runs to its end; the frame
        // after that shows the state they left.
        while let request = model.runningRequests.first { await model.finished(request: request) }
        await model.accountsListed()
        terminal.setNeedsDraw()
        await backend.waitForFrames(backend.framesPresented + 1)
        let screen = backend.lines.joined(separator: "\n")
        #expect(screen.contains("Search: garden"), "\(screen)")
        #expect(screen.contains("Roman Gardens"), "\(screen)")
        #expect(!screen.contains("War and Peace"), "\(screen)")
        _ = session
    }
}
