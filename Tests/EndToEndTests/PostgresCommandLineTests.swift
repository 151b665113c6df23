import BookshelfTestSupport
import Foundation
import TestTags
import Testing

/// `bookshelf` against a real PostgreSQL server: `setup` (twice, then an account with a
/// password), and `search` as accounts of different scopes and with good, wrong and missing
/// passwords, all through the built binary as a user would run it.
@Suite(.serialized, .tags(.postgres, .tmux)) struct PostgresCommandLineTests {
    @Test(.enabled(if: PostgresScratchServer.shouldRun))
    func setupThenSearchAsEachAccount() throws {
        // Private: dave signs in with a password (pg_hba), and `bookshelf setup` makes fixed role names.
        let server = try PostgresScratchServer(passwordRoles: ["dave"])
        defer { server.stop() }
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let clean = sandbox.withoutLibpqSettings
        let admin = server.conninfo()

        let first = try sandbox.run(["setup", "--db", admin], environment: clean)
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.output.contains("accounts alice, bob, carol"), "\(first.output)")
        let second = try sandbox.run(["setup", "--db", admin], environment: clean)
        #expect(second.status == 0, "setup again changes nothing and succeeds: \(second.errors)")
        #expect(second.output.contains("its accounts are left as they were"), "\(second.output)")
        #expect(first.output.contains("no passwords"), "the starter accounts have none: \(first.output)")
        // A second catalog on the server: alice a reader there, still an editor here, and
        // removing her there keeps her login role for this one (issue 43, item 3).
        try server.superuserSQL("CREATE DATABASE books3")
        let books3 = server.conninfo(database: "books3")
        let aliceThere = try sandbox.run(
            ["setup", "--db", books3, "--account", "alice", "--role", "reader"], environment: clean)
        #expect(
            aliceThere.output == "Added: Account alice is a reader in scope main.\n",
            "\(aliceThere.output)\(aliceThere.errors)")
        let aliceHere = try sandbox.run(["setup", "--db", admin, "--account", "alice"], environment: clean)
        #expect(
            aliceHere.output == "Account alice is an editor in scope main; nothing changed.\n",
            "\(aliceHere.output)\(aliceHere.errors)")
        let leftThere = try sandbox.run(["setup", "--db", books3, "--remove-account", "alice"], environment: clean)
        #expect(
            leftThere.output
                == "Removed account alice; its login role stays, as an account of another catalog on this server.\n",
            "\(leftThere.output)\(leftThere.errors)")
        let notThere = try sandbox.run(
            ["search", "", "--db", server.conninfo(database: "books3", user: "alice")], environment: clean)
        #expect(
            notThere.status == 3 && notThere.errors.contains("has no Bookshelf account in this catalog"),
            "\(notThere.errors)")
        // An account is not the owner: setup as alice is refused, with a hint of whom to run it as.
        let asAlice = try sandbox.run(["setup", "--db", server.conninfo(user: "alice")], environment: clean)
        #expect(
            asAlice.status != 0 && asAlice.errors.contains("run setup as the database's owner"), "\(asAlice.errors)")
        let removed = try sandbox.run(["setup", "--db", admin, "--remove-account", "bob"], environment: clean)
        #expect(
            removed.status == 0 && removed.output == "Removed account bob and its login role.\n", "\(removed.errors)")
        let asBob = try sandbox.run(["search", "", "--db", server.conninfo(user: "bob")], environment: clean)
        #expect(asBob.status != 0, "bob's role is gone: \(asBob.output)")
        let again = try sandbox.run(["setup", "--db", admin, "--remove-account", "bob"], environment: clean)
        #expect(again.status != 0 && again.errors.contains("This catalog has no account bob."), "\(again.errors)")
        // The starter accounts of another catalog are the same login roles: setup does not
        // claim they have no passwords (bob's role was dropped above).
        try server.superuserSQL("CREATE DATABASE books4")
        let books4 = try sandbox.run(["setup", "--db", server.conninfo(database: "books4")], environment: clean)
        #expect(
            books4.output.hasSuffix(
                "accounts alice, bob, carol (without passwords: bob, give one with --account NAME "
                    + "--password-stdin; login roles already on this server, which keep their passwords: alice, carol).\n"
            ),
            "\(books4.output)\(books4.errors)")
        // A password alone leaves carol an editor in north (issue 43, item 2).
        let carolPassword = try sandbox.run(
            ["setup", "--db", admin, "--account", "carol", "--password-stdin"],
            environment: clean, input: "carol's own\n")
        #expect(
            carolPassword.output == "Account carol is an editor in scope north (password set).\n",
            "\(carolPassword.output)\(carolPassword.errors)")
        let everything = try sandbox.run(
            ["search", "", "--limit", "1", "--db", server.conninfo(user: "alice")], environment: clean)
        #expect(everything.errors.contains("3,010 matches"), "the sample went in once: \(everything.errors)")

        let dave = try sandbox.run(
            ["setup", "--db", admin, "--account", "dave", "--role", "reader", "--scope", "main", "--password-stdin"],
            environment: clean, input: "s3cret horse\n")
        #expect(dave.status == 0, "\(dave.errors)")
        #expect(dave.output.contains("Account dave is a reader in scope main, with a password."), "\(dave.output)")

        let alice = try sandbox.run(
            ["search", "history of rome", "--db", server.conninfo(user: "alice")], environment: clean)
        #expect(alice.status == 0, "\(alice.errors)")
        #expect(alice.output.contains("\tA History of Rome\tMary Beard\t1"), "\(alice.output)")

        // carol's scope is north: the server itself hides main's books from her.
        let url = "postgresql://carol@/postgres?host=\(server.directory)&port=\(server.port)"
        let carolRome = try sandbox.run(["search", "history of rome", "--db", url], environment: clean)
        #expect(carolRome.status == 0, "\(carolRome.errors)")
        #expect(
            !carolRome.output.contains("Mary Beard") && !carolRome.output.contains("Theodor Mommsen"),
            "\(carolRome.output)")
        let carolAll = try sandbox.run(["search", "", "--limit", "1", "--db", url], environment: clean)
        #expect(carolAll.errors.contains("502 matches"), "north's sample only: \(carolAll.errors)")
        let carolNorth = try sandbox.run(["search", "tromsø", "--db", url], environment: clean)
        #expect(carolNorth.output.contains("Northern Lights over Tromsø"), "\(carolNorth.output)\(carolNorth.errors)")

        // BOOKSHELF_DB and libpq's own variables work too; --account signs in as that role.
        var davesEnvironment = clean
        davesEnvironment["BOOKSHELF_DB"] = "dbname=postgres"
        davesEnvironment["PGHOST"] = server.directory
        davesEnvironment["PGPORT"] = String(server.port)
        davesEnvironment["PGPASSWORD"] = "s3cret horse"
        let withPassword = try sandbox.run(["search", "rome", "--account", "dave"], environment: davesEnvironment)
        #expect(withPassword.status == 0, "\(withPassword.errors)")
        #expect(withPassword.output.contains("History of Rome"))

        davesEnvironment["PGPASSWORD"] = "wrong"
        let wrong = try sandbox.run(["search", "rome", "--account", "dave"], environment: davesEnvironment)
        #expect(wrong.status == 3)
        #expect(wrong.output.isEmpty)
        #expect(wrong.errorLines.count == 1, "one line: \(wrong.errors)")
        #expect(wrong.errors.contains("password authentication failed for user \"dave\""), "\(wrong.errors)")

        let interactiveWrong = try sandbox.run(["--account", "dave"], environment: davesEnvironment)
        #expect(interactiveWrong.status == 3, "the interactive mode checks the sign-in before the screen")
        #expect(
            interactiveWrong.errorLines
                == wrong.errorLines.map { $0.replacingOccurrences(of: "bookshelf search:", with: "bookshelf:") },
            "\(interactiveWrong.errors)")

        davesEnvironment["PGPASSWORD"] = ""
        let none = try sandbox.run(["search", "rome", "--account", "dave"], environment: davesEnvironment)
        #expect(none.status == 3)
        #expect(none.errorLines.count == 1, "\(none.errors)")
        #expect(none.errors.contains("needs a password: set PGPASSWORD or put it in ~/.pgpass"), "\(none.errors)")

        let stranger = try sandbox.run(
            ["search", "rome", "--db", server.conninfo(user: "mallory")], environment: clean)
        #expect(stranger.status == 3)
        #expect(stranger.errorLines.count == 1, "\(stranger.errors)")
        #expect(stranger.errors.contains("role \"mallory\" does not exist"), "\(stranger.errors)")

        // A role that exists but has no account in this catalog.
        let superuserSearch = try sandbox.run(["search", "rome", "--db", admin], environment: clean)
        #expect(superuserSearch.status == 3)
        #expect(superuserSearch.errors.contains("has no Bookshelf account"), "\(superuserSearch.errors)")
    }

    @Test(.enabled(if: PostgresScratchServer.shouldRun))
    func importAndAccountsNeedTheOwnerAndAreAllOrNothing() throws {
        // Private: `bookshelf setup` makes fixed role names (alice, bob…), which belong to the whole server.
        let server = try PostgresScratchServer(passwordRoles: [])
        defer { server.stop() }
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let clean = sandbox.withoutLibpqSettings
        let admin = server.conninfo()

        let erin = try sandbox.run(
            ["setup", "--db", admin, "--account", "erin", "--role", "editor", "--scope", "east"],
            environment: clean)
        #expect(erin.status == 0, "setup --account on an empty database puts the schema in first: \(erin.errors)")
        let file = try sandbox.write(
            "east.csv", "title,author\nZyxquorian Atlas,Ed Importer\n\"Rome, the Eastern Half\",\"Beard, Mary\"\n")
        let imported = try sandbox.run(["import", file, "--scope", "east", "--db", admin], environment: clean)
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("Added 2 books to scope east."))

        let found = try sandbox.run(["search", "zyxq", "--db", server.conninfo(user: "erin")], environment: clean)
        #expect(found.output.contains("\tZyxquorian Atlas\tEd Importer\t1"), "\(found.output)\(found.errors)")
        let total = try sandbox.run(["search", "", "--db", server.conninfo(user: "erin")], environment: clean)
        #expect(total.outputLines.count == 2, "erin sees exactly scope east (no sample was loaded): \(total.output)")

        // An account cannot add books: the database refuses and nothing changes.
        let refused = try sandbox.run(
            ["import", file, "--scope", "east", "--db", server.conninfo(user: "erin")], environment: clean)
        #expect(refused.status == 3, "\(refused.errors)")
        #expect(refused.errors.contains("nothing imported"), "\(refused.errors)")
        let after = try sandbox.run(["search", "", "--db", server.conninfo(user: "erin")], environment: clean)
        #expect(after.outputLines.count == 2)

        let bad = try sandbox.run(["setup", "--db", admin, "--account", "pg_evil"], environment: clean)
        #expect(bad.status == 3)
        #expect(bad.errors.contains("cannot be an account name"), "\(bad.errors)")
        let noAccount = try sandbox.run(["setup", "--db", admin, "--role", "editor"], environment: clean)
        #expect(noAccount.status == 2)
        #expect(noAccount.errors.contains("--role applies only with --account"), "\(noAccount.errors)")
    }

    @Test func dbValuesAreTellTheStoreApartAndHelpExplainsBoth() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let help = try sandbox.run(["--help"])
        #expect(help.output.contains("setup"))
        #expect(help.output.contains("postgresql://"))
        #expect(help.output.contains("PGPASSWORD"))
        let setupHelp = try sandbox.run(["setup", "--help"])
        for option in ["--account NAME", "--role ROLE", "--scope S", "--password-stdin", "--db PATH"] {
            #expect(setupHelp.output.contains(option), "setup --help lists \(option)")
        }

        // An SQLite path with "=" in a file name stays SQLite; setup creates it and adds an account.
        let db = sandbox.path("a=b.sqlite")
        let created = try sandbox.run(["setup", "--db", db, "--account", "zoe", "--role", "editor", "--scope", "north"])
        #expect(created.status == 0, "\(created.errors)")
        #expect(FileManager.default.fileExists(atPath: db))
        let zoe = try sandbox.run(["search", "tromsø", "--account", "zoe", "--db", db])
        #expect(zoe.output.contains("Northern Lights over Tromsø"), "\(zoe.output)\(zoe.errors)")
        let sqlitePassword = try sandbox.run(
            ["setup", "--db", db, "--account", "zoe", "--password-stdin"], input: "x\n")
        #expect(sqlitePassword.status == 2)
        #expect(sqlitePassword.errors.contains("SQLite accounts have no passwords"))
    }

    @Test(.enabled(if: TmuxPane.shouldRun))
    func aNewPasswordOnATerminalIsAskedTwice() throws {
        // Issue 43, item 10: typed without echo, a slip would go unseen. Two different
        // entries stop setup before it signs in anywhere (the server here does not exist).
        let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = "postgresql://owner@/books?host=" + sandbox.path("no-server")
        let pane = try TmuxPane(
            "env HOME=\(shellQuoted(sandbox.path("home"))) TERM=xterm-256color "
                + "\(shellQuoted(binary.path)) setup --db \(shellQuoted(db)) --account dave --password-stdin; echo exit=$?; sleep 30"
        )
        defer { pane.kill() }
        try pane.waitFor(text: "Password for account dave:")
        try pane.type("first try")
        try pane.send("Enter")
        try pane.waitFor(text: "Again, to confirm:")
        try pane.type("first trz")
        try pane.send("Enter")
        let screen = try pane.waitFor(text: "exit=")
        #expect(screen.contains("The two passwords differ; nothing was changed."), "\(screen)")
        #expect(screen.contains("exit=3"), "\(screen)")
        #expect(!screen.contains("first tr"), "no echo: \(screen)")
    }
}
