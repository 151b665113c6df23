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

        .target(name: "BookCatalog"),
        .target(name: "SQLiteCatalog", dependencies: ["BookCatalog", "CSQLite"]),
        .target(name: "PostgresCatalog", dependencies: ["BookCatalog", "CLibPQ"]),
        .target(name: "BookshelfModel", dependencies: ["BookCatalog"]),
        .target(name: "TerminalUI", dependencies: ["CNcurses"]),
        .target(name: "BookshelfUI", dependencies: ["BookshelfModel", "TerminalUI"]),

        .executableTarget(
            name: "bookshelf",
            dependencies: ["BookshelfUI", "SQLiteCatalog", "PostgresCatalog"]),
        .executableTarget(
            name: "bookshelf-demo", dependencies: ["BookshelfUI", "SQLiteCatalog"], path: "Demo"),
        .executableTarget(
            name: "bookshelf-bench",
            dependencies: ["BookshelfUI", "SQLiteCatalog", "PostgresCatalog", "CSQLite"]),

        .testTarget(name: "BookCatalogTests", dependencies: ["BookCatalog"]),
        .testTarget(
            name: "CatalogContractTests",
            dependencies: ["BookCatalog", "SQLiteCatalog", "PostgresCatalog", "CLibPQ"]),
        .testTarget(name: "BookshelfModelTests", dependencies: ["BookshelfModel"]),
        .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI"]),
        .testTarget(name: "BookshelfUITests", dependencies: ["BookshelfUI"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["bookshelf", "bookshelf-demo", "bookshelf-bench", "SQLiteCatalog", "CSQLite"]),
    ],
    swiftLanguageModes: [.v6]
)
