import BookCatalog
import BookshelfTestSupport
import CSQLite
import Foundation
import SQLiteCatalog
import TestTags
import Testing

/// `kill -9` of the interactive app itself, in a real terminal, at seeded random moments
/// during saves, merges (another writer changed the author first) and account switches.
/// Afterwards the catalog passes `PRAGMA integrity_check` and every save the screen reported
/// ("Saved as revision N.") is in the store with the title the app saved.
///
/// The test runs a few seeded runs; for a longer campaign set BOOKSHELF_KILL_RUNS (runs) and
/// BOOKSHELF_KILL_SEED (the first seed), e.g. `BOOKSHELF_KILL_RUNS=200 swift test --filter AppKillCampaign`.
@Suite(.serialized, .tags(.tmux)) struct AppKillCampaignTests {
    static let environment = ProcessInfo.processInfo.environment
    static let runs = environment["BOOKSHELF_KILL_RUNS"].flatMap(Int.init) ?? 5
    static let firstSeed = environment["BOOKSHELF_KILL_SEED"].flatMap(UInt64.init) ?? 1

    @Test(.enabled(if: TmuxPane.shouldRun)) func killedAtRandomMomentsTheAppLosesNoReportedSave() async throws {
        for seed in Self.firstSeed..<(Self.firstSeed + UInt64(Self.runs)) {
            try await run(seed: seed)
        }
    }

    private enum Operation: CaseIterable { case save, merge, switchAccount }

    private func run(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let catalog = try OrderingTmuxTests.Catalog()
        defer { catalog.sandbox.remove() }
        let pidFile = catalog.sandbox.path("app.pid")
        let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
        // The inner shell writes its pid, then becomes the app (exec): that pid is the app's.
        // The outer shell keeps the pane open after the kill, so the last screen can be read.
        let inner =
            "echo $$ > \(shellQuoted(pidFile)); exec env HOME=\(shellQuoted(catalog.sandbox.path("home"))) "
            + "\(shellQuoted(binary.path)) --db \(shellQuoted(catalog.db)) --account alice"
        let pane = try TmuxPane("sh -c \(shellQuoted(inner)); exec sleep 600", columns: 110, rows: 24)
        defer { pane.kill() }
        try pane.waitFor(text: "1–1 of 1")
        let pid = try #require(
            Int32(String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))

        var reported: [Int: String] = [:]  // revision -> title the screen said was saved
        var account = "alice"
        var done: [String] = []
        let operations = 1 + Int(random.next() % 4)  // the kill comes during the last one
        for step in 1...operations {
            let last = step == operations
            let operation = Operation.allCases[Int(random.next() % UInt64(Operation.allCases.count))]
            done.append("\(operation)")
            switch operation {
            case .save, .merge:
                let word = "S\(seed)x\(step)"
                try pane.send("Enter")
                try pane.waitFor(text: "Edit book #\(catalog.book.id) · revision")
                try pane.send("C-w")
                try pane.type(word)
                try pane.waitFor(text: "Quixotic Zebra \(word)")
                if operation == .merge {
                    let edit = try catalog.sandbox.run([
                        "edit", "\(catalog.book.id)", "--author", "Writer \(seed) \(step)",
                        "--db", catalog.db, "--account", "bob",
                    ])
                    #expect(edit.status == 0, "\(edit.errors)")
                }
                try pane.send("Enter")
                if last {
                    try killSoon(pid, &random)
                } else {
                    let screen = try pane.waitFor("a save outcome") { $0.contains("Saved as revision") }
                    note(screen, title: "Quixotic Zebra \(word)", into: &reported)
                    try pane.send("Escape")
                    try pane.waitFor("the editor to close") { !$0.contains("Edit book #") }
                }
                // A revision the screen reported after the kill counts only if it is new (never an
                // earlier save's message still on screen).
                if last {
                    var after: [Int: String] = [:]
                    note(try pane.capture(), title: "Quixotic Zebra \(word)", into: &after)
                    if let (revision, title) = after.first, revision > (reported.keys.max() ?? 0) {
                        reported[revision] = title
                    }
                }
            case .switchAccount:
                try pane.send("F2")
                try pane.waitFor(text: "Switch account")
                try pane.send(account == "alice" ? "Down" : "Up", "Enter")
                if last {
                    try killSoon(pid, &random)
                } else {
                    account = account == "alice" ? "bob" : "alice"
                    try pane.waitFor("the switch to \(account)") {
                        $0.contains("Bookshelf  \(account) (") && !$0.contains("Switch account")
                    }
                }
            }
            if last { break }
        }
        if kill(pid, 0) == 0 { kill(pid, SIGKILL) }
        try Await.until("the app (pid \(pid)) to die", timeout: .seconds(10)) { Await.hasEnded(pid) }

        #expect(try integrity(catalog.db) == "ok", "seed \(seed)")
        let history = try await SQLiteCatalog.open(path: catalog.db, create: false).remote(account: "alice")
            .history(of: catalog.book.id)
        print(
            "kill campaign seed \(seed): \(done.joined(separator: ", ")), killed during the last; "
                + "screen reported revisions \(reported.keys.sorted()); store has \(history.count) revisions")
        let stored = Dictionary(
            history.map { ($0.record.revision, $0.record.title) }, uniquingKeysWith: { first, _ in first })
        for (revision, title) in reported {
            #expect(
                stored[revision] == title,
                "seed \(seed): the screen reported revision \(revision) \"\(title)\"; the store has \(stored)")
        }
    }

    /// Kills the app 0 to 40 ms after the key that started the operation.
    private func killSoon(_ pid: Int32, _ random: inout SplitMix64) throws {
        // The one sleep here is the point: the kill lands at a random moment of the operation.
        usleep(UInt32(random.next() % 40_000))
        kill(pid, SIGKILL)
    }

    /// Records "Saved as revision N." from a screen as a save of `title`.
    private func note(_ screen: String, title: String, into reported: inout [Int: String]) {
        let text = screen.replacingOccurrences(of: "\n", with: " ")
        guard let range = text.range(of: "Saved as revision ") else { return }
        let digits = text[range.upperBound...].prefix { $0.isNumber }
        if let revision = Int(digits) { reported[revision] = title }
    }
}

/// A small seeded generator (SplitMix64): the same seed, the same campaign.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

private func integrity(_ path: String) throws -> String? {
    var handle: OpaquePointer?
    guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle else {
        throw CocoaError(.fileReadUnknown)
    }
    defer { sqlite3_close_v2(handle) }
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(handle, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK else {
        throw CocoaError(.fileReadCorruptFile)
    }
    defer { sqlite3_finalize(statement) }
    guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return nil }
    return String(cString: text)
}
