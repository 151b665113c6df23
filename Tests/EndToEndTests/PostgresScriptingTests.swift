import BookshelfTestSupport
import Foundation
import TestTags
import Testing

/// `edit`, `history` and `export` against a real PostgreSQL server, where the database
/// itself decides who may see and change what.
@Suite(.serialized, .tags(.postgres)) struct PostgresScriptingTests {
    @Test(.enabled(if: PostgresScratchServer.shouldRun))
    func editHistoryAndExportAsEachAccount() throws {
        // Private: `bookshelf setup` makes fixed role names (alice, bob, carol), which belong to the whole server.
        let server = try PostgresScratchServer(passwordRoles: [])
        defer { server.stop() }
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let clean = sandbox.withoutLibpqSettings
        try sandbox.setUp(server)
        let alice = server.conninfo(user: "alice"), bob = server.conninfo(user: "bob"),
            carol = server.conninfo(user: "carol")

        let found = try sandbox.run(["search", "history of rome", "--db", alice], environment: clean)
        let line = try #require(
            found.outputLines.first { $0.hasSuffix("\tHistory of Rome\tTheodor Mommsen\t1") }, "\(found.output)")
        let id = String(line.split(separator: "\t")[0])

        let edited = try sandbox.run(["edit", id, "--author", "T. Mommsen", "--db", alice], environment: clean)
        #expect(edited.status == 0 && edited.output == "2\n", "\(edited.errors)")
        let history = try sandbox.run(["history", id, "--db", bob], environment: clean)
        #expect(history.status == 0, "\(history.errors)")
        #expect(
            history.outputLines.map { $0.split(separator: "\t", omittingEmptySubsequences: false)[2] } == [
                "alice", "-",
            ])

        let late = try sandbox.run(
            ["edit", id, "--title", "Late", "--if-revision", "1", "--db", alice], environment: clean)
        #expect(late.status == 4 && late.output == "\(id)\tHistory of Rome\tT. Mommsen\t2\n", "\(late.errors)")
        let reader = try sandbox.run(["edit", id, "--title", "Vandal", "--db", bob], environment: clean)
        #expect(reader.status == 3 && reader.errors.contains("may not edit"), "\(reader.errors)")
        let outsider = try sandbox.run(["edit", id, "--title", "Vandal", "--db", carol], environment: clean)
        #expect(outsider.status == 3 && outsider.errors.contains("no book \(id)"), "\(outsider.errors)")
        #expect(try sandbox.run(["history", id, "--db", carol], environment: clean).status == 3)

        let exported = try sandbox.run(["export", "--format", "jsonl", "--db", alice], environment: clean)
        #expect(exported.status == 0 && exported.outputLines.count == 3_010, "\(exported.errors)")
        // Mommsen's book has details in the starter catalog: they follow in the same object.
        #expect(exported.output.contains("{\"title\":\"History of Rome\",\"author\":\"T. Mommsen\","))
        let otherScope = try sandbox.run(["export", "--scope", "north", "--db", alice], environment: clean)
        #expect(
            otherScope.status == 3 && otherScope.errors.contains("sees scope main, not north"), "\(otherScope.errors)")
    }
}
