import BookCatalog
import BookshelfModel
@testable import BookshelfUI
import CatalogSimulation
import Synchronization
import Testing
import TerminalUI

@Suite struct LineEditorTests {
    @Test func readlineEditsWorkOnCharactersNotBytes() {
        var line = LineEditor("Café 日本 👩‍👩‍👧")
        #expect(line.cursor == 9, "the family emoji is one character")
        line.apply(.backspace)
        #expect(line.text == "Café 日本 ")
        line.apply(.home)
        line.apply(.right)
        line.apply(.right)
        line.apply(.right)
        line.apply(.deleteForward)
        #expect(line.text == "Caf 日本 ")
        line.apply(.end)
        line.apply(.deleteWordBackward)
        #expect(line.text == "Caf ")
        line.apply(.insert("é"))
        line.apply(.left)
        line.apply(.deleteToEnd)
        #expect(line.text == "Caf ")
        line.replaceText("Other")
        #expect(line.cursor == 5)
        line.apply(.deleteToStart)
        #expect(line.text.isEmpty && line.cursor == 0)
        let changed = line.apply(.backspace)
        #expect(!changed)
    }
}

@MainActor
@Suite struct LoopTests {
    /// `--trace` says per search what answered it: each shown search over the in-memory store
    /// names it, and a search overtaken by a newer key names nothing.
    @Test func theTraceNamesWhatAnsweredEachShownSearch() async {
        let harness = AppHarness()
        var lines: [String] = []
        let trace = EventTrace { lines.append($0) }
        harness.model.onTrace = { trace.request($0) }
        await harness.start()
        await harness.type("rom")
        let searches = lines.filter { $0.hasPrefix("event=request ") && $0.contains(" kind=search ") }
        #expect(searches.contains { $0.contains("fate=published") }, "\(lines)")
        for line in searches {
            let shown = line.contains("fate=published")
            #expect(line.hasSuffix(" source=memory") == shown, "\(line)")
            #expect(line.contains("source=") == shown, "\(line)")
        }
    }

    @Test func theTraceRecordsKeyToPaintWithoutAnyText() async {
        let harness = AppHarness()
        var lines: [String] = []
        let trace = EventTrace { lines.append($0) }
        harness.app.trace = trace
        harness.model.onTrace = { trace.request($0) }
        await harness.start()
        await harness.type("rom")
        _ = harness.screen
        trace.framePresented()
        await harness.press(.down)
        _ = harness.screen
        trace.framePresented()
        let keys = lines.filter { $0.hasPrefix("event=key") }
        #expect(keys.count == 4, "\(lines)")
        #expect(keys.filter { $0.contains("key=character") && $0.contains("request=") }.count == 3)
        #expect(keys.contains { $0.hasPrefix("event=key key=down key_to_paint_ms=") })
        #expect(lines.contains { $0.hasPrefix("event=request request=") && $0.contains("kind=search") })
        #expect(trace.keyToPaintMilliseconds.count == 4)
        for line in lines {
            #expect(!line.contains("rom") && !line.contains("Rome") && !line.contains("Beard"), "\(line)")
        }
    }

    @Test func ticksPollForOthersChangesAboutOncePerInterval() async throws {
        let clock = Mutex(Duration.zero)
        let catalog = MemoryCatalog()
        catalog.addAccount(Account(name: "alice", role: .editor, scope: "main"))
        catalog.addAccount(Account(name: "bob", role: .editor, scope: "main"))
        let book = catalog.addBook(title: "Old Title", scope: "main")
        let model = BookshelfModel(connector: MemoryCatalogConnector(catalog: catalog), account: "alice")
        let app = BookshelfApp(
            model: model, store: StoreInfo(kind: "Memory", location: "test"),
            size: TerminalSize(rows: 10, columns: 60), freshnessInterval: .seconds(1),
            now: { clock.withLock { $0 } })
        app.start()
        while let request = model.runningRequests.first { await model.finished(request: request) }
        let bob = MemoryBookRemote(catalog: catalog, account: catalog.account(named: "bob")!)
        _ = try await bob.save(id: book.id, title: "New Title", expectedRevision: 1)

        clock.withLock { $0 = .milliseconds(500) }
        app.handle(.tick)
        #expect(model.runningRequests.isEmpty, "too early to poll")
        clock.withLock { $0 = .milliseconds(1_000) }
        app.handle(.tick)
        #expect(!model.runningRequests.isEmpty, "the poll started")
        while let request = model.runningRequests.first { await model.finished(request: request) }
        #expect(model.state.search.rows.first?.title == "New Title", "the rows were refreshed")
    }
}
