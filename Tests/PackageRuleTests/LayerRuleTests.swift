import Foundation
import Testing

/// Rules of ARCHITECTURE.md that a change could break without any other test noticing.
@Suite("The layers' rules")
struct LayerRuleTests {
    /// The Swift files under `folder` (relative to the package root) whose lines import `module`.
    static func files(under folder: String, importing module: String) throws -> Set<String> {
        let directory = ManifestTests.root.appendingPathComponent(folder)
        guard let files = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        var found: Set<String> = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            let imports = text.split(separator: "\n").contains { line in
                (line.hasPrefix("import ") || line.hasPrefix("@testable import "))
                    && line.split(separator: " ").last == Substring(module)
            }
            if imports { found.insert(file) }
        }
        return found
    }

    @Test("in TerminalUI only NcursesBackend touches ncurses")
    func onlyTheBackendImportsNcurses() throws {
        let importers = try Self.files(under: "Sources/TerminalUI", importing: "CNcurses")
        #expect(importers == ["NcursesBackend.swift"], "files of TerminalUI importing CNcurses: \(importers.sorted())")
    }

    /// Every Swift file under `folder`, as (path relative to the package root, text).
    static func swiftFiles(under folder: String) throws -> [(path: String, text: String)] {
        let directory = ManifestTests.root.appendingPathComponent(folder)
        guard let files = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        return try files.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map { file in
            (folder + "/" + file, try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8))
        }
    }

    /// Where SQL may be written: the two stores; the bench's raw-SQLite baseline, which
    /// measures the store against SQLite used directly; and the replicas bench's administration
    /// of its own throwaway servers (delaying and promoting the standby), which no store does.
    static let sqlPlaces = [
        "Sources/SQLiteCatalog/", "Sources/PostgresCatalog/",
        "Sources/bookshelf-bench/RawSQLiteSearch.swift", "Sources/bookshelf-bench/SearchScaling.swift",
        "Sources/bookshelf-bench/ReplicasBench.swift",
    ]

    @Test("SQL is written only in the stores")
    func sqlOnlyInTheStores() throws {
        let statement = try Regex(
            #""(SELECT|INSERT INTO|UPDATE [a-z_.]+ SET|DELETE FROM|CREATE (TABLE|INDEX|ROLE|DATABASE|SCHEMA)|ALTER (TABLE|ROLE)|DROP (TABLE|INDEX|ROLE)|PRAGMA|GRANT|REVOKE|LISTEN|NOTIFY) "#
        )
        var outside: [String] = []
        for (path, text) in try Self.swiftFiles(under: "Sources") + Self.swiftFiles(under: "Demo")
        where !Self.sqlPlaces.contains(where: { path.hasPrefix($0) }) {
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(statement) {
                outside.append("\(path):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(outside.isEmpty, "SQL outside the stores:\n\(outside.joined(separator: "\n"))")
    }

    /// The search engine reads books only through its `SearchSource`: it imports no store and no
    /// database library, and no line of its code names a column or table of either store's schema.
    /// (Its comments may: they say which store column a source gives it, as an example.)
    static let storeSchemaNames = [
        "change_seq", "title_key", "title_terms", "author_terms", "other_terms", "search_snapshots",
        "search_snapshot_parts", "books_by_", "bookshelf.",
    ]

    @Test("the search engine knows no store: no store's module, library or schema in its code")
    func theSearchEngineKnowsNoStore() throws {
        let stores: Set<String> = ["SQLiteCatalog", "PostgresCatalog", "CSQLite", "CLibPQ", "CatalogSimulation"]
        var found: [String] = []
        for (path, text) in try Self.swiftFiles(under: "Sources/SearchEngine") {
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                let imported = code.hasPrefix("import ") ? code.split(separator: " ").last.map(String.init) : nil
                if let imported, stores.contains(imported) {
                    found.append("\(path):\(number + 1): imports \(imported)")
                }
                for name in Self.storeSchemaNames where code.contains(name) {
                    found.append("\(path):\(number + 1): names \(name)")
                }
            }
        }
        #expect(!(try Self.swiftFiles(under: "Sources/SearchEngine")).isEmpty, "no Sources/SearchEngine")
        #expect(found.isEmpty, "the search engine reaches into a store:\n\(found.joined(separator: "\n"))")
    }

    /// The types that opt out of the compiler's Sendable checking, each with what makes it
    /// safe. A new one must be added here with its reason, or use `Locked` instead.
    static let uncheckedSendable: [String: String] = [
        "Locked": "the one lock type: its NSLock guards the value",
        "PostgresSession": "touched only on its worker's serial queue, which is its lock",
        "PostgresChangeWatch": "touched only on its own worker's serial queue, which is its lock",
        "ConnectionBox": "the administrative connection, touched only on its worker's serial queue",
        "ForegroundWork": "its counter is read and written only with its NSCondition locked",
        "IndexArray": "a read-only view of memory written before any view of it exists",
        "OwnedIndexMemory": "written once by the index builder, before any array views it",
        "SnapshotBytes": "bytes that never change once handed over, released once",
        "MappedIndexMemory": "a read-only mapping; block checks are idempotent",
        "ProgressDisplay": "updates come from one thread at a time; its lock keeps that true",
        "ResidentPeaks": "bench: written by its sampling thread, read only after that thread ended",
        "Shared": "test: its value is behind an NSLock",
        "Written": "test: written and read on the test's own thread",
        "Box": "test: the raw SQL connection, touched only on its worker's serial queue",
    ]

    @Test("@unchecked Sendable only where a listed reason allows it")
    func uncheckedSendableOnlyWithAReason() throws {
        let declaration = try Regex(#"(class|struct|enum|actor) ([A-Za-z_][A-Za-z0-9_]*)[^{]*@unchecked Sendable"#)
        var found: [String: String] = [:]
        for (path, text) in try Self.swiftFiles(under: "Sources") + Self.swiftFiles(under: "Tests")
            + Self.swiftFiles(under: "Demo")
        {
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                guard let match = line.firstMatch(of: declaration), let name = match.output[2].substring else {
                    continue
                }
                found[String(name)] = path
            }
        }
        let unlisted = found.filter { Self.uncheckedSendable[$0.key] == nil }.map { "\($0.key) (\($0.value))" }
        #expect(unlisted.isEmpty, "@unchecked Sendable without a listed reason: \(unlisted.sorted())")
        let gone = Set(Self.uncheckedSendable.keys).subtracting(found.keys)
        #expect(gone.isEmpty, "listed but no longer @unchecked Sendable (remove them from the list): \(gone.sorted())")
    }
}
