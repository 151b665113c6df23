import BookCatalog
import CSQLite
import Foundation
@testable import SQLiteCatalog
@testable import SearchEngine
import Testing

/// A catalog file with bytes flipped where SQLite's checks may not look (it reads pages
/// lazily and checksums nothing): every search is then either the right answer for what the
/// file holds, or the one "damaged catalog" failure. Never a trap, never a partial answer.
@Suite struct SQLiteDamagedCatalogTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// Seeded, so that a failing trial is the same file on every run.
    struct SplitMix {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    @Test func aCatalogWithFlippedBytesAnswersWholeOrSaysItIsDamaged() async throws {
        let intact = directory.path("intact.sqlite")
        do {
            let catalog = try SQLiteCatalog.open(path: intact, create: true)
            try catalog.addAccount(Account(name: "reader", role: .reader, scope: "main"))
            var generator = GeneratedBooks(seed: 5)
            try catalog.insertBooks(
                (0..<3_000).map { _ in
                    let seed = generator.book()
                    return NewBook(title: seed.title, author: seed.author)
                }, scope: "main")
        }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: intact)))
        var random = SplitMix(state: 36)
        var outcomes: [String: Int] = [:]
        for trial in 0..<40 {
            var damaged = bytes
            // Past the file header: damage to it is refused at open, which is not what this tests.
            for _ in 0..<20 { damaged[100 + random.next(damaged.count - 100)] ^= UInt8(1 + random.next(255)) }
            let path = directory.path("damaged-\(trial).sqlite")
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            let outcome = try await searchEveryWay(path)
            outcomes[outcome, default: 0] += 1
        }
        print("flipped-byte trials: \(outcomes.sorted { $0.key < $1.key })")
    }

    /// What the books table holds when read whole by a plain connection: the ids in it, or
    /// nil when SQLite itself reports damage on the way (a search must then fail as damaged).
    private func tableIDs(_ path: String) -> Set<Int>? {
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return nil }
        func ids(_ sql: String) -> [Int]? {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { return nil }
            defer { sqlite3_finalize(statement) }
            var found: [Int] = []
            while true {
                switch sqlite3_step(statement) {
                case SQLITE_ROW: found.append(Int(sqlite3_column_int64(statement, 0)))
                case SQLITE_DONE: return found
                default: return nil
                }
            }
        }
        // The table in rowid order and the title index must agree, or the file contradicts itself.
        guard let table = ids("SELECT id FROM books NOT INDEXED WHERE scope = 'main'"),
            let titled = ids("SELECT id FROM books WHERE scope = 'main' ORDER BY title_key, id"),
            Set(table) == Set(titled), table.count == titled.count
        else { return nil }
        return Set(table)
    }

    /// Opens the damaged catalog as the app does and searches it before and after its index is
    /// built; answers what happened, and records an issue for a partial or wrong answer.
    private func searchEveryWay(_ path: String) async throws -> String {
        let expected = tableIDs(path)
        let catalog: SQLiteCatalog
        let remote: SQLiteBookRemote
        do {
            catalog = try SQLiteCatalog.open(path: path, create: false)
            remote = try catalog.remote(account: "reader")
        } catch {
            // Refused at open: no answer at all, which is never a partial one.
            #expect(
                error == .corrupt(path: path) || error == .notADatabase(path: path)
                    || error == .unknownAccount("reader")
                    || error == .otherDatabase(path: path), "\(path): \(error)")
            return "refused at open"
        }
        var answered = 0
        // Before the index is built, the first results come from the title index alone, and
        // may lack what only the table holds: the build reads every row and finds that out,
        // and from then on (the CLI before it exits, the app at the next search) it is an error.
        var wrongBeforeTheBuild: [String] = []
        for step in 0..<3 {
            do {
                if step == 1 { _ = try await remote.searchIndexReport() }
                let all = try await remote.search(SearchQuery(text: "", limit: 100_000))
                let ids = all.records.map(\.id)
                var wrong: [String] = []
                if !(expected != nil && Set(ids) == expected && ids.count == all.total) {
                    wrong.append(
                        "\(ids.count) books listed, \(all.total) counted, \(expected?.count ?? -1) in the table")
                }
                for text in ["a", "hist", "東京", "al ro"] {
                    let page = try await remote.search(SearchQuery(text: text, limit: 100_000))
                    if !(page.records.count == page.total && Set(page.records.map(\.id)).isSubset(of: expected ?? [])) {
                        wrong.append("\(text): \(page.records.count) of \(page.total)")
                    }
                }
                if step == 0 {
                    wrongBeforeTheBuild = wrong
                } else {
                    #expect(wrong.isEmpty, "\(path) step \(step): \(wrong)")
                }
                answered += 1
            } catch let failure as BookFailure {
                guard case let .storeUnavailable(reason) = failure, reason.hasPrefix("damaged catalog: ") else {
                    Issue.record("\(path) step \(step): \(failure)")
                    return "other failure"
                }
                #expect(reason.contains(path) && reason.contains("integrity_check"))
                return answered == 0 ? "damaged at once" : "damaged once the index was built"
            }
        }
        #expect(
            wrongBeforeTheBuild.isEmpty,
            "\(path) before the build, and no damage found after it: \(wrongBeforeTheBuild)")
        return "answered whole"
    }
}
