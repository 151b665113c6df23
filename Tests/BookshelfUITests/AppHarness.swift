import BookCatalog
import BookshelfModel
import BookshelfUI
import CatalogSimulation
import TerminalUI

/// The app over an in-memory catalog, driven key by key, with the screen read back as text.
/// Waiting is always for the model's own effects to finish, never for a clock.
@MainActor
final class AppHarness {
    let catalog: MemoryCatalog
    let model: BookshelfModel
    let app: BookshelfApp
    private(set) var quitCount = 0
    private var backend: MemoryBackend

    init(
        columns: Int = 80, rows: Int = 12, books: [(String, String)] = AppHarness.classics,
        accounts: [Account] = [
            Account(name: "alice", role: .editor, scope: "main"), Account(name: "bob", role: .editor, scope: "main"),
        ],
        passwords: [String: String] = [:], account: String = "alice", pageSize: Int = 50,
        store: StoreInfo = StoreInfo(kind: "Memory", location: "test"),
        otherScopes: [(scope: String, books: [(String, String)])] = [],
        countsItsCatalog: Bool = false,
        details: (_ title: String, _ author: String) -> BookDetails = { _, _ in BookDetails.empty },
        connector wrap: (MemoryCatalogConnector) -> any CatalogConnector = { $0 },
        keeper: (any DraftKeeping)? = nil,
        recent: (catalog: RecentCatalog, catalogs: any CatalogSwitching)? = nil
    ) {
        catalog = MemoryCatalog()
        for account in accounts { catalog.addAccount(account) }
        for (title, author) in books {
            catalog.addBook(title: title, author: author, details: details(title, author), scope: "main")
        }
        for shelf in otherScopes {
            for (title, author) in shelf.books {
                catalog.addBook(title: title, author: author, details: details(title, author), scope: shelf.scope)
            }
        }
        model = BookshelfModel(
            connector: wrap(MemoryCatalogConnector(catalog: catalog, passwords: passwords)), account: account,
            pageSize: pageSize, keeper: keeper, countsBooks: countsItsCatalog, catalog: recent?.catalog,
            catalogs: recent?.catalogs)
        app = BookshelfApp(model: model, store: store, size: TerminalSize(rows: rows, columns: columns))
        backend = MemoryBackend(width: columns, height: rows)
        app.onQuit = { [unowned self] in quitCount += 1 }
    }

    static let classics: [(String, String)] = [
        ("A History of Rome", "Mary Beard"),
        ("History of Rome", "Theodor Mommsen"),
        ("The Histories", "Herodotus"),
        ("Roman Gardens", "Anna Green"),
        ("War and Peace", "Leo Tolstoy"),
    ]

    /// The catalog a first run makes (`SampleBooks.starter`): its accounts, and its shelves in
    /// the order the command line adds them, so ids are the ones a user sees.
    static func starter(columns: Int, rows: Int, store: StoreInfo) -> AppHarness {
        let shelves = SampleBooks.starter.shelves.map { shelf in
            (scope: shelf.scope, books: shelf.books.map { ($0.title, $0.author) })
        }
        // The details the starter books have (ISBNs, series, tags), by title and author.
        let details = Dictionary(
            SampleBooks.starter.shelves.flatMap(\.books).map { ("\($0.title)\u{0}\($0.author)", $0.details) },
            uniquingKeysWith: { first, _ in first })
        return AppHarness(
            columns: columns, rows: rows, books: shelves[0].books, accounts: SampleBooks.starter.accounts,
            store: store, otherScopes: Array(shelves.dropFirst()), countsItsCatalog: true,
            details: { title, author in details["\(title)\u{0}\(author)"] ?? BookDetails.empty })
    }

    /// Mommsen's book (#2) after bob changed its author ("T. Mommsen", revision 2), then its
    /// title ("History of Rome, Vol. 2", revision 3), its history open on a 140×20 screen.
    /// carl is a reader.
    static func mommsenWithHistory(account: String = "alice") async throws -> AppHarness {
        let harness = AppHarness(
            columns: 140, rows: 20,
            accounts: [
                Account(name: "alice", role: .editor, scope: "main"),
                Account(name: "bob", role: .editor, scope: "main"),
                Account(name: "carl", role: .reader, scope: "main"),
            ], account: account)
        let bob = harness.otherEditor()
        _ = try await bob.save(SaveRequest(id: 2, title: "History of Rome", author: "T. Mommsen", expectedRevision: 1))
        _ = try await bob.save(
            SaveRequest(id: 2, title: "History of Rome, Vol. 2", author: "T. Mommsen", expectedRevision: 2))
        await harness.start()
        await harness.type("mommsen")
        await harness.press(.function(3))
        return harness
    }

    /// Lets the header's book count, which the model counts on a task of its own, arrive.
    func awaitCatalogSize() async {
        var turns = 0
        while model.state.search.accountBooks == nil, turns < 10_000 {
            await Task.yield()
            turns += 1
        }
    }

    func start() async {
        app.start()
        await settle()
        await model.accountsListed()
    }

    /// Waits until every effect the model started has been processed.
    func settle() async { await settle(leaving: []) }

    /// Waits until every effect the model started has been processed but those of `kinds`,
    /// which a test holds back (an account listing or a count that answers late).
    func settle(leaving kinds: Set<RequestKind>) async {
        func held(_ request: Int) -> Bool {
            model.pendingRequests.contains { $0.request == request && kinds.contains($0.kind) }
        }
        while let request = model.runningRequests.first(where: { !held($0) }) {
            await model.finished(request: request)
        }
    }

    func press(_ keys: Key...) async {
        for key in keys { app.handle(.key(key)) }
        await settle()
    }

    func type(_ text: String) async {
        for character in text { app.handle(.key(.character(character))) }
        await settle()
    }

    func resize(columns: Int, rows: Int) {
        app.handle(.resize(TerminalSize(rows: rows, columns: columns)))
    }

    /// The frame as the terminal would show it, after a diff against the previous one.
    var screen: Canvas {
        var canvas = Canvas(width: app.size.columns, height: app.size.rows)
        app.render(into: &canvas)
        backend.present(canvas)
        return backend.screen
    }

    var lines: [String] { let screen = self.screen; return (0..<screen.height).map { screen.trimmedLine($0) } }

    var text: String { lines.joined(separator: "\n") }

    /// A second person editing the same catalog.
    func otherEditor(_ name: String = "bob") -> MemoryBookRemote {
        MemoryBookRemote(catalog: catalog, account: catalog.account(named: name)!)
    }
}

extension Canvas {
    /// Column where `needle` starts on row `y`, counted in cells.
    func column(of needle: String, row y: Int) -> Int? {
        var cells: [String] = []
        for x in 0..<width { cells.append(self[x, y].symbol) }
        let target = Array(needle).map(String.init)
        guard target.count <= cells.count else { return nil }
        for start in 0...(cells.count - target.count) where Array(cells[start..<start + target.count]) == target {
            return start
        }
        return nil
    }

    func row(containing needle: String) -> Int? {
        (0..<height).first { textLines()[$0].contains(needle) }
    }
}
