// swift-tools-version: 6.0
import PackageDescription

// Layers, top to bottom (no module imports one above it):
//   executables (bookshelf, bookshelf-demo, bookshelf-bench)
//   BookshelfUI -> BookshelfModel -> BookCatalog <- SQLiteCatalog / PostgresCatalog
//   TerminalUI (ncurses, knows nothing about books)
//   CNcurses, CSQLite, CLibPQ (system libraries)
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
        .systemLibrary(
            name: "CLibPQ", path: "Sources/CLibPQ",
            providers: [.apt(["libpq-dev"])]),

        .target(name: "BookCatalog", dependencies: ["TerminalSafeText"]),
        // Stores and clocks that act out a script: the demo, the tests and `--latency`.
        .target(name: "CatalogSimulation", dependencies: ["BookCatalog"]),
        // Reading CSV and JSON Lines files of books, for `bookshelf import`.
        .target(name: "CatalogImport", dependencies: ["BookCatalog"]),
        .target(name: "SQLiteCatalog", dependencies: ["BookCatalog", "CSQLite"]),
        .target(name: "PostgresCatalog", dependencies: ["BookCatalog", "CLibPQ"]),
        .target(name: "BookshelfModel", dependencies: ["BookCatalog"]),
        .target(name: "TerminalUI", dependencies: ["CNcurses", "TerminalSafeText"]),
        // What may reach a terminal: validation, the canvas and command-line output share it.
        .target(name: "TerminalSafeText"),
        // For the test targets and the bench: a scratch PostgreSQL server, child processes,
        // the tmux driver, unsafe-character samples. Never linked into the app.
        .target(name: "BookshelfTestSupport"),
        .target(name: "BookshelfUI", dependencies: ["BookshelfModel", "TerminalUI"]),

        .executableTarget(
            name: "bookshelf",
            dependencies: ["BookshelfUI", "SQLiteCatalog", "PostgresCatalog", "CatalogSimulation", "CatalogImport", "TerminalSafeText"]),
        .executableTarget(
            name: "bookshelf-demo", dependencies: ["BookshelfUI", "SQLiteCatalog", "CatalogSimulation"], path: "Demo"),
        .executableTarget(
            name: "bookshelf-bench",
            dependencies: ["BookshelfUI", "SQLiteCatalog", "PostgresCatalog", "CSQLite", "BookshelfTestSupport"]),

        .testTarget(name: "BookCatalogTests", dependencies: ["BookCatalog", "CatalogSimulation"]),
        // The seeds' sample code against BookCatalog alone: the floor of its public API.
        .testTarget(name: "SeedTests", dependencies: ["BookCatalog"]),
        .testTarget(name: "CatalogImportTests", dependencies: ["BookCatalog", "CatalogImport", "BookshelfTestSupport"]),
        .testTarget(
            name: "CatalogContractTests",
            dependencies: ["BookCatalog", "SQLiteCatalog", "PostgresCatalog", "CLibPQ", "CatalogSimulation", "BookshelfTestSupport"]),
        .testTarget(name: "BookshelfModelTests", dependencies: ["BookshelfModel", "CatalogSimulation"]),
        .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI"]),
        .testTarget(name: "BookshelfUITests", dependencies: ["BookshelfUI", "CatalogSimulation", "BookshelfTestSupport"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["bookshelf", "bookshelf-demo", "SQLiteCatalog", "BookCatalog", "TerminalUI", "BookshelfTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
