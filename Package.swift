// swift-tools-version: 6.0
import PackageDescription

// Layers, top to bottom (no module imports one above it; see ARCHITECTURE.md):
//   executables (bookshelf, bookshelf-demo, bookshelf-bench)
//   BookshelfUI -> BookshelfModel -> BookCatalog <- SQLiteCatalog (-> SearchEngine) / PostgresCatalog
//                                                <- CatalogSimulation, CatalogImport
//   TerminalUI (ncurses, knows nothing about books)
//   TerminalSafeText (what may reach a terminal, and how a count is written; BookCatalog, the model
//   and TerminalUI share it)
//   Locking (a lock ThreadSanitizer sees; the domain, the stores, their fakes and the test support share it)
//   SearchEngine (the search index over any store's books; BookCatalog below it)
//   CNcurses, CSQLite, CLibPQ, CTextWidth, CMemoryAccess (system libraries; CTextWidth is the C
//   library's wcwidth)
// Every target declares exactly the package modules it imports (an executable test
// dependency that is only run, not imported, says so).
let package = Package(
    name: "Bookshelf",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "bookshelf", targets: ["bookshelf"]),
        .executable(name: "bookshelf-demo", targets: ["bookshelf-demo"]),
        .executable(name: "bookshelf-bench", targets: ["bookshelf-bench"]),
        .library(name: "BookCatalog", targets: ["BookCatalog"]),
    ],
    targets: [
        // System libraries. Their -dev packages are installed by .ci/run.
        .systemLibrary(
            name: "CNcurses", path: "Sources/CNcurses",
            providers: [.apt(["libncurses-dev"])]),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite",
            providers: [.apt(["libsqlite3-dev"])]),
        // What the search engine asks of memory that Swift cannot spell: a prefetch, and mremap.
        .systemLibrary(name: "CMemoryAccess", path: "Sources/CMemoryAccess"),
        // The C library's character widths and locale, so measuring text needs no ncurses.
        .systemLibrary(name: "CTextWidth", path: "Sources/CTextWidth"),
        // libpq's header (libpq-dev), with the library loaded on first use rather than linked:
        // see Sources/CLibPQ/include/CLibPQ.h.
        .target(name: "CLibPQ", path: "Sources/CLibPQ"),

        .target(name: "TerminalSafeText"),
        // `Locked`: a value behind a lock that ThreadSanitizer understands (see its comment).
        .target(name: "Locking"),
        // Options declared once and typed; the parser, --help, the man page, docs/cli.md and the
        // shell completions are made from the declarations (the three executables share it).
        .target(name: "CommandLineOptions", dependencies: ["TerminalSafeText"]),
        .target(name: "BookCatalog", dependencies: ["Locking", "TerminalSafeText"]),
        // The search engine: builds, stores, opens, catches up and answers from a search index over
        // any store's books, read through a `SearchSource`; no SQL and no store's schema.
        .target(name: "SearchEngine", dependencies: ["BookCatalog", "CMemoryAccess", "Locking"]),
        .target(name: "SQLiteCatalog", dependencies: ["BookCatalog", "CSQLite", "SearchEngine"]),
        // Its schema is the SQL files of Schema/migrations, made part of its code by the EmbedSQL
        // plugin (see Plugins/EmbedSQL for why not resources); Schema/current.sql is for readers.
        .target(
            name: "PostgresCatalog", dependencies: ["BookCatalog", "CLibPQ", "Locking"], exclude: ["Schema"],
            plugins: ["EmbedSQL"]),
        // The EmbedSQL plugin's tool: SQL files into one Swift file, each as a raw string literal.
        .executableTarget(name: "embed-sql", path: "BuildTools/embed-sql"),
        .plugin(name: "EmbedSQL", capability: .buildTool(), dependencies: ["embed-sql"]),
        // Stores and clocks that act out a script: the demo, the tests and `--latency`.
        .target(name: "CatalogSimulation", dependencies: ["BookCatalog", "Locking"]),
        // Reading CSV and JSON Lines files of books, for `bookshelf import`.
        .target(name: "CatalogImport", dependencies: ["BookCatalog", "TerminalSafeText"]),
        .target(name: "BookshelfModel", dependencies: ["BookCatalog", "Locking", "TerminalSafeText"]),
        .target(name: "TerminalUI", dependencies: ["CNcurses", "CTextWidth", "TerminalSafeText"]),
        .target(
            name: "BookshelfUI", dependencies: ["BookCatalog", "BookshelfModel", "TerminalSafeText", "TerminalUI"]),
        // For the test targets and the bench: a scratch PostgreSQL server, child processes,
        // the tmux driver, unsafe-character samples. Never linked into the app.
        .target(name: "BookshelfTestSupport", dependencies: ["Locking"]),
        // The tests' tiers as Swift Testing tags (postgres, tmux, process, exhaustive, slow):
        // only test targets import it. `Scripts/test` runs a tier; see CONTRIBUTING.md.
        .target(name: "TestTags"),
        // The checks every store must pass (the repository contract), for each store's test
        // target to run with a fixture of its own. It links Swift Testing: only tests import it.
        .target(name: "CatalogContract", dependencies: ["BookCatalog"]),

        .executableTarget(
            name: "bookshelf",
            dependencies: [
                "BookCatalog", "BookshelfModel", "BookshelfUI", "CatalogImport", "CatalogSimulation",
                "CommandLineOptions", "Locking", "PostgresCatalog", "SQLiteCatalog", "TerminalSafeText", "TerminalUI",
            ]),
        .executableTarget(
            name: "bookshelf-demo",
            dependencies: ["BookCatalog", "BookshelfModel", "CatalogSimulation", "CommandLineOptions", "TerminalUI"],
            path: "Demo"),
        .executableTarget(
            name: "bookshelf-bench",
            dependencies: [
                "BookCatalog", "BookshelfModel", "BookshelfTestSupport", "BookshelfUI", "CSQLite",
                "CatalogSimulation", "CommandLineOptions", "PostgresCatalog", "SQLiteCatalog", "SearchEngine",
                "TerminalSafeText", "TerminalUI",
            ]),

        // The seeds' sample code against BookCatalog alone: the floor of its public API.
        .testTarget(name: "SeedSampleCodeTests", dependencies: ["BookCatalog"]),
        // The manifest and the layer rules, read from the sources: needs no module of the package.
        .testTarget(name: "PackageRuleTests"),
        .testTarget(name: "BookCatalogTests", dependencies: ["BookCatalog", "CatalogSimulation", "TestTags"]),
        .testTarget(
            name: "CatalogImportTests", dependencies: ["BookCatalog", "BookshelfTestSupport", "CatalogImport"]),
        // The checks every store must pass, run against the memory and SQLite stores here and
        // against PostgreSQL in PostgresCatalogTests (its fixture needs the store's internals).
        .testTarget(
            name: "CatalogContractTests",
            dependencies: ["BookCatalog", "CatalogContract", "CatalogSimulation", "SQLiteCatalog"]),
        // PostgreSQL's own tests, in folders that follow Sources/PostgresCatalog's concerns:
        // Schema (Schema/, PostgresSchema), Search (search_page, SearchFolding, BookIndexText),
        // Remote (PostgresRemote, its session and statements), Connection (the connectors,
        // PostgresConnection, PostgresRefusal), Standby (StandbyReads, WALFloor, ReplicationCheck),
        // Setup (PostgresSetup, PostgresPendingLists), Contract (the contract checks on PostgreSQL),
        // and Support (the test cluster and its catalog template).
        .testTarget(
            name: "PostgresCatalogTests",
            dependencies: [
                "BookCatalog", "BookshelfTestSupport", "CatalogContract", "CatalogSimulation", "Locking",
                "PostgresCatalog", "SQLiteCatalog", "TestTags",
            ]),
        // The SQLite catalog's own tests, in folders that follow Sources/SQLiteCatalog's.
        .testTarget(
            name: "SQLiteCatalogTests",
            dependencies: [
                "BookCatalog", "BookshelfTestSupport", "CSQLite", "SQLiteCatalog", "SearchEngine", "TestTags",
            ]),
        .testTarget(
            name: "BookshelfModelTests",
            dependencies: ["BookCatalog", "BookshelfModel", "CatalogSimulation", "TestTags"]),
        .testTarget(name: "TerminalUITests", dependencies: ["TerminalSafeText", "TerminalUI"]),
        .testTarget(
            name: "BookshelfUITests",
            dependencies: [
                "BookCatalog", "BookshelfModel", "BookshelfTestSupport", "BookshelfUI", "CatalogSimulation",
                "TerminalSafeText", "TerminalUI",
            ]),
        // The command line of the three executables: the parser, and --help, the man page,
        // docs/cli.md, the completions and Scripts/install against the declarations. The bench's
        // parsing is tested through its module; bookshelf-demo is only run (by the install test).
        .testTarget(
            name: "CommandLineTests",
            dependencies: [
                "BookshelfTestSupport", "CSQLite", "CommandLineOptions", "TerminalSafeText", "TestTags", "bookshelf",
                "bookshelf-bench", "bookshelf-demo",
            ]),
        .testTarget(
            name: "EndToEndTests",
            // bookshelf-bench is run by the tests, not imported: the dependency builds it first.
            // bookshelf-demo is run, and its request panel drawn on a canvas (DemoCallPanelTests).
            dependencies: [
                "BookCatalog", "BookshelfModel", "BookshelfTestSupport", "CSQLite", "SQLiteCatalog",
                "TerminalSafeText", "TerminalUI", "TestTags", "bookshelf", "bookshelf-bench", "bookshelf-demo",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
