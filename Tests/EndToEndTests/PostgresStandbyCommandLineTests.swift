import BookshelfTestSupport
import Foundation
import TestTags
import Testing

/// The command line with a string of two hosts, a hot standby first and the primary second:
/// `search --reads standby` is answered, `edit` reaches the primary, and `--reads` and
/// `BOOKSHELF_READS` take only what they should.
@Suite(.tags(.postgres)) struct PostgresStandbyCommandLineTests {
    @Test(.enabled(if: PostgresScratchServer.shouldRun))
    func searchOnTheStandbyAndEditOnThePrimary() throws {
        // Private: a delayed standby copies the whole server; `bookshelf setup` makes fixed role names.
        let primary = try PostgresScratchServer(passwordRoles: [])
        defer { primary.stop() }
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let clean = sandbox.withoutLibpqSettings
        try sandbox.setUp(primary)
        // 3 s behind: what the standby shows after a save is the book as it was.
        let standby = try PostgresScratchServer(
            standbyOf: primary, settings: ["fsync=off", "recovery_min_apply_delay=3s"])
        defer { standby.stop() }
        let both =
            "host=\(standby.directory),\(primary.directory) port=\(standby.port),\(primary.port) dbname=postgres user=alice"

        let found = try sandbox.run(
            ["search", "history of rome", "--reads", "standby", "--db", both], environment: clean)
        let line = try #require(
            found.outputLines.first { $0.hasSuffix("\tHistory of Rome\tTheodor Mommsen\t1") },
            "\(found.output) \(found.errors)")
        let id = String(line.split(separator: "\t")[0])
        // BOOKSHELF_READS does not send edit's read of the book it compares-and-sets to a
        // standby: the second edit reads revision 2 at once, and saves revision 3.
        var standbyReads = clean
        standbyReads["BOOKSHELF_READS"] = "standby"
        let edited = try sandbox.run(["edit", id, "--author", "T. Mommsen", "--db", both], environment: standbyReads)
        #expect(edited.status == 0 && edited.output == "2\n", "\(edited.errors)")
        let again = try sandbox.run(["edit", id, "--year", "1856", "--db", both], environment: standbyReads)
        #expect(again.status == 0 && again.output == "3\n", "\(again.output) \(again.errors)")
        let onPrimary = try sandbox.run(["history", id, "--db", primary.conninfo(user: "alice")], environment: clean)
        #expect(onPrimary.outputLines.count == 3, "\(onPrimary.output) \(onPrimary.errors)")

        let sideways = try sandbox.run(["search", "rome", "--reads", "sideways", "--db", both], environment: clean)
        #expect(sideways.status == 2 && sideways.errors.contains("--reads must be primary or standby"))
        var bogus = clean
        bogus["BOOKSHELF_READS"] = "nearest"
        let fromEnvironment = try sandbox.run(["search", "rome", "--db", both], environment: bogus)
        #expect(fromEnvironment.status == 2 && fromEnvironment.errors.contains("BOOKSHELF_READS must be"))
    }

    @Test func readsOnAnSQLiteCatalogIsAMistakeButItsVariableIsNot() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let given = try sandbox.run(["search", "rome", "--reads", "standby", "--db", db])
        #expect(given.status == 2 && given.errors.contains("--reads applies to PostgreSQL catalogs only"))
        let waiting = try sandbox.run(["search", "rome", "--standby-wait", "10", "--db", db])
        #expect(waiting.status == 2 && waiting.errors.contains("--standby-wait applies to PostgreSQL catalogs only"))
        let variable = try sandbox.run(["search", "rome", "--db", db], environment: ["BOOKSHELF_READS": "standby"])
        #expect(variable.status == 0, "\(variable.errors)")
    }
}
