import BookshelfTestSupport
import Foundation
import Synchronization
import TestTags
import Testing

/// A failover on real servers, through the command line: `setup --check` reads the replication
/// set-up it finds, and with synchronous replication (`remote_apply`, the standby named in
/// `synchronous_standby_names`) no save that `bookshelf edit` acknowledged is missing after the
/// primary is killed and its standby promoted.
@Suite(.serialized, .enabled(if: PostgresScratchServer.shouldRun), .tags(.postgres))
struct PostgresFailoverCommandLineTests {
    @Test("setup --check: one server without standbys in one line; with a standby, asynchronous: saves can be lost")
    func checkSingleServerAndAsynchronousStandby() throws {
        // Private: --check must see one server without standbys, then with one of its own.
        let primary = try PostgresScratchServer(passwordRoles: [])
        defer { primary.stop() }
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        try sandbox.setUp(primary)

        let alone = try sandbox.run(
            ["setup", "--check", "--db", primary.conninfo()], environment: sandbox.withoutLibpqSettings)
        #expect(alone.status == 0, "\(alone.errors)")
        #expect(
            alone.outputLines == [
                "host \(primary.directory) port \(primary.port): a single primary without standbys; there is nothing "
                    + "to fail over to, so no acknowledged save can be lost to a failover."
            ], "\(alone.output)")

        let standby = try PostgresScratchServer(standbyOf: primary, settings: ["fsync=off", "cluster_name=standby1"])
        defer { standby.stop() }
        try primary.waitForStandby(named: "standby1", syncState: "async")
        let both = try sandbox.run(
            [
                "setup", "--check", "--db",
                FailoverPair(primary: primary, standby: standby).connectionString(user: "postgres"),
            ],
            environment: sandbox.withoutLibpqSettings)
        #expect(both.status == 0, "\(both.errors)")
        let lines = both.outputLines
        #expect(lines.count == 4, "\(both.output)")
        #expect(
            lines.first == "host \(primary.directory) port \(primary.port): primary, synchronous_commit = on, "
                + "synchronous_standby_names = ''", "\(both.output)")
        #expect(
            lines.dropFirst().first?.hasPrefix("  standby standby1: state streaming, sync_state async, replay lag ")
                == true, "\(both.output)")
        #expect(
            lines.dropFirst(2).first
                == "host \(standby.directory) port \(standby.port): standby, streaming from a primary",
            "\(both.output)")
        #expect(
            lines.last?.hasPrefix(
                "Asynchronous: acknowledged saves can be lost on failover (replication is asynchronous: "
                    + "synchronous_standby_names is empty)") == true, "\(both.output)")
    }

    @Test("synchronous: setup --check says no acknowledged save can be lost, and 8 editors lose none across a failover")
    func synchronousFailoverLosesNoAcknowledgedSave() throws {
        // Private: made synchronous by ALTER SYSTEM, then killed while its standby is promoted.
        let primary = try PostgresScratchServer(passwordRoles: [])
        defer { primary.stop() }
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        try sandbox.setUp(primary)
        let standby = try PostgresScratchServer(standbyOf: primary, settings: ["fsync=off", "cluster_name=standby1"])
        defer { standby.stop() }
        // Set after the base backup, so the standby does not copy them and, once promoted, does
        // not wait for a standby of its own.
        try primary.superuserSQL("ALTER SYSTEM SET synchronous_standby_names = 'standby1'")
        try primary.superuserSQL("ALTER SYSTEM SET synchronous_commit = 'remote_apply'")
        try primary.superuserSQL("SELECT pg_reload_conf()")
        try primary.waitForStandby(named: "standby1", syncState: "sync")
        let pair = FailoverPair(primary: primary, standby: standby)
        let clean = sandbox.withoutLibpqSettings

        let check = try sandbox.run(
            ["setup", "--check", "--db", pair.connectionString(user: "postgres")], environment: clean)
        #expect(check.status == 0, "\(check.errors)")
        #expect(
            check.outputLines.first == "host \(primary.directory) port \(primary.port): primary, "
                + "synchronous_commit = remote_apply, synchronous_standby_names = 'standby1'", "\(check.output)")
        #expect(
            check.outputLines.dropFirst().first?.hasPrefix("  standby standby1: state streaming, sync_state sync, ")
                == true, "\(check.output)")
        #expect(
            check.outputLines.last == "Synchronous: no acknowledged save can be lost on failover (a save is "
                + "acknowledged once a synchronous standby has it).", "\(check.output)")

        let listed = try sandbox.run(["search", "", "--db", pair.connectionString(user: "alice")], environment: clean)
        let books = listed.outputLines.prefix(8).map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return (id: fields[0], revision: Int(fields[fields.count - 1]) ?? 0)
        }
        try #require(books.count == 8 && books.allSatisfy { $0.revision > 0 }, "\(listed.output)")

        let command = [
            try #require(ChildProcess.onPath("timeout"), "coreutils' timeout bounds each edit"), "-k", "2", "20",
            try #require(BookshelfProcess.binary, "the bookshelf executable beside the tests").path,
        ]
        let editors = EditorLoops(
            sandbox: sandbox, command: command, connectionString: pair.connectionString(user: "alice"), books: books)
        editors.start()
        editors.waitForAcknowledgedSaves(8)
        try primary.stopServerImmediately()
        try standby.promote()
        let beforeFailover = editors.acknowledgedCount
        editors.waitForAcknowledgedSaves(beforeFailover + 8)
        let edits = editors.stop()

        let acknowledged = edits.filter { $0.status == 0 }
        #expect(acknowledged.count >= beforeFailover + 8, "acknowledged saves stopped after the failover")
        for edit in edits where edit.status != 0 {
            #expect(edit.status != 124 && edit.status != 137, "an edit hung: \(edit.arguments)")
            #expect(edit.status == 3 || edit.status == 4, "\(edit.status): \(edit.errors)")
            let last = edit.errors.split(separator: "\n").last.map(String.init) ?? ""
            #expect(last.hasPrefix("bookshelf edit: ") && last.count > 20, "no clear error: \(edit.errors)")
        }
        // Each acknowledged save must be in the new primary's history, at the revision it was acknowledged as.
        var lost: [String] = []
        for (id, saves) in Dictionary(grouping: acknowledged, by: \.book) {
            let history = try sandbox.run(["history", id, "--db", standby.conninfo(user: "alice")], environment: clean)
            let stored = Set(
                history.outputLines.map { line in
                    let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
                    return fields.count > 3 ? "\(fields[0])\t\(fields[3])" : line
                })
            for save in saves where !stored.contains("\(save.revision ?? 0)\t\(save.title)") {
                lost.append("book \(id) revision \(save.revision ?? 0) \(save.title)")
            }
        }
        #expect(lost.isEmpty, "acknowledged saves lost in the failover: \(lost)")

        // After the failover: the old primary is gone, and the new one has no standby of its own.
        let after = try sandbox.run(
            ["setup", "--check", "--db", pair.connectionString(user: "postgres")], environment: clean)
        #expect(after.status == 0, "\(after.errors)")
        let afterLines = after.outputLines
        #expect(afterLines.count == 4, "\(after.output)")
        #expect(
            afterLines.first?.hasPrefix("host \(primary.directory) port \(primary.port): not reachable (") == true,
            "\(after.output)")
        #expect(
            Array(afterLines.dropFirst()) == [
                "host \(standby.directory) port \(standby.port): primary, synchronous_commit = on, "
                    + "synchronous_standby_names = ''",
                "  no standby streams from it",
                "A single primary without standbys: nothing to fail over to.",
            ], "\(after.output)")
    }
}

/// A primary and its standby as one connection string, the primary first.
struct FailoverPair {
    let primary: PostgresScratchServer
    let standby: PostgresScratchServer

    func connectionString(user: String) -> String {
        "host=\(primary.directory),\(standby.directory) port=\(primary.port),\(standby.port) dbname=postgres user=\(user)"
    }
}

extension PostgresScratchServer {
    /// Promotes this standby and returns once it accepts writes.
    func promote() throws {
        try superuserSQL(
            "DO $$ BEGIN IF NOT pg_promote(true, 30) THEN RAISE 'not promoted within 30 s'; END IF; END $$")
    }

    /// Waits until this primary streams to the standby `name` with `syncState` (`async`, `sync`).
    func waitForStandby(named name: String, syncState: String, timeout: Duration = .seconds(20)) throws {
        let probe = """
            DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_stat_replication WHERE application_name = '\(name)'
            AND state = 'streaming' AND sync_state = '\(syncState)') THEN RAISE 'not yet'; END IF; END $$
            """
        try Await.until("a \(syncState) standby \(name) streaming", timeout: timeout, every: .milliseconds(50)) {
            (try? superuserSQL(probe)) != nil
        }
    }
}

/// Eight `bookshelf edit --if-revision` loops, one book each, every edit bounded by `timeout`.
final class EditorLoops: Sendable {
    struct Edit: Sendable {
        let book: String
        let title: String
        let arguments: [String]
        /// The exit status; 124 or 137 when `timeout` ended a hung edit.
        let status: Int32
        /// The revision it printed: an acknowledged save's, or the book's as a conflict found it.
        let revision: Int?
        let errors: String
    }

    private struct State {
        var edits: [Edit] = []
        var stopping = false
    }

    private let sandbox: BookshelfProcess
    /// `timeout` with its limits, then the bookshelf executable.
    private let command: [String]
    private let connectionString: String
    private let books: [(id: String, revision: Int)]
    private let state = Mutex(State())
    private let finished = DispatchGroup()

    init(sandbox: BookshelfProcess, command: [String], connectionString: String, books: [(id: String, revision: Int)]) {
        self.sandbox = sandbox
        self.command = command
        self.connectionString = connectionString
        self.books = books
    }

    var acknowledgedCount: Int { state.withLock { $0.edits.count { $0.status == 0 } } }

    func start() {
        for (index, book) in books.enumerated() {
            finished.enter()
            Thread.detachNewThread { [self] in
                defer { finished.leave() }
                var revision = book.revision
                var round = 0
                while !state.withLock({ $0.stopping }) {
                    round += 1
                    let edit = self.edit(book.id, title: "editor \(index) round \(round)", ifRevision: revision)
                    state.withLock { $0.edits.append(edit) }
                    if let next = edit.revision { revision = next }
                }
            }
        }
    }

    /// Waits until `count` saves in all were acknowledged; after 60 s the test fails on the count.
    func waitForAcknowledgedSaves(_ count: Int) {
        _ = try? Await.until("\(count) acknowledged saves", timeout: .seconds(60)) { acknowledgedCount >= count }
    }

    func stop() -> [Edit] {
        state.withLock { $0.stopping = true }
        finished.wait()
        return state.withLock { $0.edits }
    }

    /// One edit. A conflict prints the book as it is (its revision last): the next edit starts there.
    private func edit(_ id: String, title: String, ifRevision revision: Int) -> Edit {
        let arguments = ["edit", id, "--title", title, "--if-revision", String(revision), "--db", connectionString]
        let output = sandbox.path("edit-\(UUID().uuidString).out")
        let errors = sandbox.path("edit-\(UUID().uuidString).err")
        var environment = ProcessInfo.processInfo.environment
        environment["BOOKSHELF_DB"] = nil
        environment["HOME"] = sandbox.path("home")
        environment.merge(sandbox.withoutLibpqSettings) { _, new in new }
        let status =
            (try? ChildProcess.run(
                command + arguments,
                output: output, errors: errors, environment: environment)) ?? -1
        let printed = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        let next: Int? =
            switch status {
            case 0: Int(printed)
            case 4: printed.split(separator: "\t").last.flatMap { Int($0) }
            default: nil
            }
        return Edit(book: id, title: title, arguments: arguments, status: status, revision: next, errors: said)
    }
}
