import BookCatalog
import BookshelfTestSupport
import CatalogSimulation
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// Serialized: two tests sign in as the one role the cluster asks a password of, and roles
/// belong to the whole cluster.
@Suite(
    "PostgreSQL remote", .serialized,
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"), .tags(.postgres))
struct PostgresRemoteTests {
    @Test("saves are compare-and-set, keep or change the author, and record their operation")
    func compareAndSet() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let reader = try await catalog.addAccount("reader", role: .reader, scope: "main")
        let books = try await catalog.addBooks([NewBook(title: "Dune", author: "Frank Herbert")], scope: "main")
        let dune = try #require(books.first)
        let remote = try await catalog.remote(for: editor)

        #expect(
            try await remote.load(id: dune.id)
                == BookRecord(id: dune.id, title: "Dune", revision: 1, author: "Frank Herbert"))
        let renamed = SaveRequest(id: dune.id, title: "  Dune Messiah ", expectedRevision: 1)
        let saved = try await remote.save(renamed)
        #expect(saved == BookRecord(id: dune.id, title: "Dune Messiah", revision: 2, author: "Frank Herbert"))
        let reauthored = try await remote.save(
            SaveRequest(id: dune.id, title: "Dune Messiah", author: "F. Herbert", expectedRevision: 2))
        #expect(reauthored.revision == 3 && reauthored.author == "F. Herbert")

        await #expect(throws: BookFailure.conflict(expected: 2, actual: 3)) {
            try await remote.save(id: dune.id, title: "Stale", expectedRevision: 2)
        }
        await #expect(throws: BookFailure.missing) {
            try await remote.save(id: 999_999, title: "Nope", expectedRevision: 1)
        }
        await #expect(throws: BookFailure.missing) { try await remote.load(id: 999_999) }
        await #expect(throws: BookFailure.invalidTitle) {
            try await remote.save(id: dune.id, title: "bad\u{1B}[2J", expectedRevision: 3)
        }

        #expect(try await remote.committedRevision(of: renamed.operation) == 2)
        #expect(try await remote.committedRevision(of: UUID()) == nil)

        let readerRemote = try await catalog.remote(for: reader)
        #expect(readerRemote.account == reader)
        await #expect(throws: BookFailure.notAllowed) {
            try await readerRemote.save(id: dune.id, title: "Mine", expectedRevision: 3)
        }
        await #expect(throws: BookFailure.missing) {
            try await readerRemote.save(id: 999_999, title: "Mine", expectedRevision: 1)
        }
        #expect(try await remote.load(id: dune.id).revision == 3)
    }

    @Test("a session runs with its statement timeout and without JIT, which cost a batch's read more than it ran")
    func sessionSettings() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let remote = try await catalog.remote(for: editor)
        let session = remote.session
        let settings = try await remote.worker.perform {
            try PostgresSession.read(
                session.live().execute("SELECT current_setting('statement_timeout'), current_setting('jit')")
            ).rows
        }
        #expect(settings == [["30s", "off"]])
    }

    @Test("search pages and totals equal the in-memory reference for tricky text")
    func searchMatchesReference() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let books: [NewBook] =
            [
                NewBook(title: "The History of Rome", author: "Mary Beard"),
                NewBook(title: "History", author: "Herodotus"),
                NewBook(title: "A Short History of Nearly Everything", author: "Bill Bryson"),
                NewBook(title: "Café Society", author: "Émile Zola"),
                NewBook(title: "cafe noir", author: "Anon"),
                NewBook(title: "日本の歴史", author: "山田 太郎"),
                NewBook(title: "歴史とは何か", author: "E. H. Carr"),
                NewBook(title: "100% Pure", author: "Under_Score"),
                NewBook(title: "1000 Places", author: "Back\\Slash"),
                NewBook(title: "Rome: An Empire's Story", author: "Robert Kagan"),
                NewBook(title: "Romeo and Juliet", author: "William Shakespeare"),
                NewBook(title: "Zebra", author: "History Channel"),
                NewBook(title: "Straße nach Rom", author: "Groß"),
                NewBook(title: "Ωmega", author: "Ångström"),
                NewBook(title: "Don't Panic", author: "O'Brien"),
            ] + (1...30).map { NewBook(title: "Volume \($0) of Rome", author: "Series Writer") }
        let stored = try await catalog.addBooks(books, scope: "main")
        // A different scope's book that must never show up.
        _ = try await catalog.addBooks([NewBook(title: "History of Elsewhere")], scope: "other")

        let reference = MemoryCatalog()
        let referenceAccount = Account(name: "reference", role: .editor, scope: "main")
        reference.addAccount(referenceAccount)
        for record in stored { reference.put(record, scope: "main") }
        let expected = MemoryBookRemote(catalog: reference, account: referenceAccount)
        let remote = try await catalog.remote(for: editor)

        let queries = [
            "", "hist", "HISTORY", "history rome", "rom", "rome volume 1", "cafe", "CAFÉ", "zola",
            "歴史", "歴", "本の", "100%", "%", "_", "under_", "back\\", "\\", "'", "don't", "o'b",
            "strasse", "straße", "gross", "omega", "ωm", "angstrom", "of", "of rome", "e h carr",
            "nothing-matches", "a%b", "h_story", "   ", "volume 3", "elsewhere",
        ]
        var compared = 0
        for text in queries {
            for (limit, offset) in [(50, 0), (5, 0), (5, 5), (7, 28), (3, 100)] {
                let query = SearchQuery(text: text, limit: limit, offset: offset)
                let want = try await expected.search(query)
                let got = try await remote.search(query)
                #expect(got == want, "query \(text.debugDescription) limit \(limit) offset \(offset)")
                compared += 1
            }
        }
        print("PostgreSQL search compared with the reference on \(compared) pages")
    }

    @Test("a password prompt's password signs in once; without it the server asks for one")
    func passwordSignIn() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let account = Account(name: PostgresTestCluster.passwordRole, role: .editor, scope: "main")
        try await catalog.setup.addAccount(account, password: "correct horse")
        await #expect(throws: PostgresConnectFailure.passwordRequired) {
            _ = try await PostgresRemote.connect(catalog.connector(for: account))
        }
        let refusal = await #expect(throws: PostgresConnectFailure.self) {
            _ = try await PostgresRemote.connect(catalog.connector(for: account), password: "wrong")
        }
        #expect(
            refusal?.description.contains("password authentication failed") == true, "\(String(describing: refusal))")
        let remote = try await PostgresRemote.connect(catalog.connector(for: account), password: "correct horse")
        #expect(remote.account == account)
        #expect(!catalog.connector(for: account).description.contains("correct"))
    }

    @Test("a lost connection of a password session asks for the password again, and the same session goes on")
    func reconnectNeedsPasswordAgain() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let account = Account(name: PostgresTestCluster.passwordRole, role: .editor, scope: "main")
        try await catalog.setup.addAccount(account, password: "correct horse")
        let dune = try #require(try await catalog.addBooks([NewBook(title: "Dune")], scope: "main").first)
        let remote = try await PostgresRemote.connect(catalog.connector(for: account), password: "correct horse")
        #expect(try await remote.load(id: dune.id) == dune)

        let admin = try await RawSQLSession(catalog.adminConnector)
        func dropConnections() async throws {
            _ = try await admin.rows(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", [account.name])
            // Termination is a signal: wait until the backend is gone.
            try await Await.until(
                "the terminated backend to leave pg_stat_activity", timeout: .seconds(10), every: .milliseconds(10)
            ) {
                try await admin.rows("SELECT count(*) FROM pg_stat_activity WHERE usename = $1", [account.name])
            } _: {
                $0 == [["0"]]
            }
        }
        try await dropConnections()
        await #expect(throws: PasswordNeededAgain(account: account.name)) {
            _ = try await remote.search(SearchQuery(text: "dune"))
        }
        await #expect(throws: PasswordNeededAgain(account: account.name)) { _ = try await remote.load(id: dune.id) }
        await #expect(throws: BookFailure.notAllowed) { try await remote.reauthenticate(password: "wrong") }
        try await remote.reauthenticate(password: "correct horse")
        #expect(try await remote.search(SearchQuery(text: "dune")).records == [dune])
        #expect(
            try await remote.checkForChanges() == ChangeNotice(bookIDs: nil, reconnected: true),
            "after a reconnect anything may have changed")

        // The password served that handshake only: the next loss asks again.
        try await dropConnections()
        await #expect(throws: PasswordNeededAgain(account: account.name)) { _ = try await remote.load(id: dune.id) }
    }

    @Test("setup refuses the database's owner, and any role owning the catalog's tables, as an account")
    func setupRefusesOwners() async throws {
        // The owner of a table is not held by its row-level security, so as an account it
        // would read and edit every scope (issue 43, item 1).
        let catalog = try await PostgresTestCatalog.make()
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let owner = "owner_" + suffix, database = "owned_" + suffix
        _ = try await catalog.setup.execute("CREATE ROLE \(owner) LOGIN CREATEROLE")
        let server = try await PostgresSetup.connect(catalog.cluster.connector(database: "postgres"))
        _ = try await server.execute("CREATE DATABASE \(database) OWNER \(owner)")
        let owned = try await PostgresSetup.connect(catalog.cluster.connector(database: database, user: owner))
        try await owned.migrate()
        await #expect(throws: PostgresSetupFailure.ownsCatalog(owner)) {
            try await owned.addAccount(Account(name: owner, role: .reader, scope: "main"))
        }
        #expect(try await owned.execute("SELECT count(*) FROM bookshelf.accounts WHERE name = $1", [owner]) == [["0"]])

        let tableOwner = "tables_" + suffix
        _ = try await catalog.setup.execute("CREATE ROLE \(tableOwner)")
        _ = try await catalog.setup.execute("ALTER TABLE bookshelf.saves OWNER TO \(tableOwner)")
        await #expect(throws: PostgresSetupFailure.ownsCatalog(tableOwner)) {
            try await catalog.setup.addAccount(Account(name: tableOwner, role: .editor, scope: "main"))
        }
        #expect(
            try await catalog.setup.execute("SELECT rolcanlogin::text FROM pg_roles WHERE rolname = $1", [tableOwner])
                == [["false"]])
    }

    @Test("setup keeps an account's role and scope unless asked; a re-run neither demotes nor re-creates accounts")
    func setupKeepsAccounts() async throws {
        // Issue 43, item 2: a password must not move an editor of north into main as a reader.
        let catalog = try await PostgresTestCatalog.make()
        let carol = try await catalog.addAccount("carol", role: .editor, scope: "north")
        let password = try await catalog.setup.setAccount(named: carol.name, role: nil, scope: nil, password: "pw")
        #expect(password == AccountChange(account: carol, before: carol, setPassword: true))
        #expect(try await catalog.remote(for: carol).account == carol)
        let moved = try await catalog.setup.setAccount(named: carol.name, role: nil, scope: "east")
        #expect(
            moved.account == Account(name: carol.name, role: .editor, scope: "east") && moved.changedScope
                && !moved.changedRole)

        // The starter accounts are made once, on a catalog that has none: an administrator's
        // later demotion and removal stand through a plain re-run.
        let fresh = try await PostgresTestCatalog.make()
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let starters = [
            Account(name: "alice_" + suffix, role: .editor, scope: "main"),
            Account(name: "bob_" + suffix, role: .reader, scope: "main"),
        ]
        let first = try await fresh.setup.prepare(accounts: starters, samples: [:])
        #expect(first.map(\.account) == starters && first.allSatisfy(\.isNew))
        try await fresh.setup.setAccount(named: starters[0].name, role: .reader, scope: nil)
        _ = try await fresh.setup.execute("DELETE FROM bookshelf.accounts WHERE name = $1", [starters[1].name])
        _ = try await fresh.setup.execute("DROP ROLE \(starters[1].name)")
        let again = try await fresh.setup.prepare(accounts: starters, samples: [:])
        #expect(again.isEmpty)
        #expect(
            try await fresh.setup.execute("SELECT name, role, scope FROM bookshelf.accounts ORDER BY name")
                == [[starters[0].name, "reader", "main"]])
        #expect(
            try await fresh.setup.execute("SELECT count(*) FROM pg_roles WHERE rolname = $1", [starters[1].name]) == [
                ["0"]
            ])
    }

    @Test("one login role is an account of two catalogs on a server, with its own role and scope in each")
    func catalogsKeepTheirOwnRoles() async throws {
        // Issue 43, item 3: making books3's alice a reader must not make books' alice, an
        // editor, a reader in books too (the groups were the server's, not the catalog's).
        let books = try await PostgresTestCatalog.make()
        let alice = try await books.addAccount("alice", role: .editor, scope: "main")
        let bob = try await books.addAccount("bob", role: .editor, scope: "main")
        let dune = try await books.addBooks([NewBook(title: "Dune")], scope: "main")[0]
        let books3 = try await PostgresTestCatalog.make()
        let aliceThere = Account(name: alice.name, role: .reader, scope: "north")
        try await books3.setup.addAccount(aliceThere)
        let emma = try await books3.addBooks([NewBook(title: "Emma")], scope: "north")[0]
        _ = try await books3.addBooks([NewBook(title: "Main of books3")], scope: "main")

        let inBooks = try await books.remote(for: alice)
        #expect(inBooks.account == alice)
        #expect(try await inBooks.save(id: dune.id, title: "Dune Messiah", expectedRevision: 1).revision == 2)
        let inBooks3 = try await books3.remote(for: alice)
        #expect(inBooks3.account == aliceThere)
        #expect(try await inBooks3.bookCount() == 1, "north of books3 only")
        await #expect(throws: BookFailure.notAllowed) {
            _ = try await inBooks3.save(id: emma.id, title: "Mine", expectedRevision: 1)
        }
        // The switcher lists each catalog's own accounts; bob is none of books3's.
        #expect(try await inBooks3.accountNames() == [alice.name])
        #expect(try await inBooks.accountNames() == [alice.name, bob.name].sorted())
        // And each catalog's own roles beside them, which a reader may read too (the switcher's
        // column; bookshelf.accounts shows an account only its own row).
        #expect(try await inBooks3.accountRoles() == [alice.name: .reader])
        #expect(try await inBooks.accountRoles() == [alice.name: .editor, bob.name: .editor])
        await #expect(throws: PostgresConnectFailure.noAccount(role: bob.name)) {
            _ = try await books3.remote(for: bob)
        }

        // A change in one catalog stays there.
        try await books3.setup.setAccount(named: alice.name, role: .editor, scope: nil)
        try await books.setup.setAccount(named: alice.name, role: .reader, scope: nil)
        let promoted = try await books3.remote(for: alice)
        #expect(try await promoted.save(id: emma.id, title: "Emma, Annotated", expectedRevision: 1).revision == 2)
        let demoted = try await books.remote(for: alice)
        #expect(demoted.account == Account(name: alice.name, role: .reader, scope: "main"))
        await #expect(throws: BookFailure.notAllowed) {
            _ = try await demoted.save(id: dune.id, title: "Mine", expectedRevision: 2)
        }

        // Removing her from books3 leaves her login role to books, where she still signs in.
        try await books3.setup.removeAccount(named: alice.name)
        #expect(
            try await books.setup.execute("SELECT count(*) FROM pg_roles WHERE rolname = $1", [alice.name]) == [["1"]])
        #expect(try await books.remote(for: alice).account == Account(name: alice.name, role: .reader, scope: "main"))
        await #expect(throws: PostgresConnectFailure.noAccount(role: alice.name)) {
            _ = try await books3.remote(for: alice)
        }
    }

    @Test("schema 8 moves a catalog onto its own groups and keeps each account's role from its own table")
    func migrationToOwnGroupsKeepsRoles() async throws {
        // Issue 43, item 3. Accounts as setup made them before version 8, on two catalogs of
        // one server; books3's setup then made alice a reader server-wide, though books'
        // table still says editor.
        let books = try await PostgresTestCatalog.make(schemaVersion: 7)
        let books3 = try await PostgresTestCatalog.make(schemaVersion: 7)
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let alice = Account(name: "alice_" + suffix, role: .editor, scope: "north")
        let bob = Account(name: "bob_" + suffix, role: .reader, scope: "main")
        for account in [alice, bob] {
            _ = try await books.setup.execute("CREATE ROLE \(account.name) LOGIN")
            _ = try await books.setup.execute("GRANT bookshelf_\(account.role.rawValue) TO \(account.name)")
            _ = try await books.setup.execute(
                "INSERT INTO bookshelf.accounts (name, role, scope) VALUES ($1, $2, $3)",
                [account.name, account.role.rawValue, account.scope])
        }
        _ = try await books.setup.execute("REVOKE bookshelf_editor FROM \(alice.name)")
        _ = try await books.setup.execute("GRANT bookshelf_reader TO \(alice.name)")
        _ = try await books3.setup.execute(
            "INSERT INTO bookshelf.accounts (name, role, scope) VALUES ($1, 'reader', 'main')",
            [alice.name])
        let dune = try await books.addBooks([NewBook(title: "Dune")], scope: "north")[0]
        let emma = try await books.addBooks([NewBook(title: "Emma")], scope: "main")[0]
        // The leak as found: her save, as the database saw it, refused for want of the grant.
        let leaked = try await RawSQLSession(books.connector(for: alice))
        #expect(
            try await leaked.run(
                "UPDATE bookshelf.books SET title = 'Mine', revision = revision + 1 WHERE id = $1", [String(dune.id)]
            ).sqlState == PostgresServerError.insufficientPrivilege)

        #expect(try await books.setup.migrate() == PostgresSchema.latestVersion)
        let aliceInBooks = try await books.remote(for: alice)
        #expect(aliceInBooks.account == alice)
        #expect(try await aliceInBooks.save(id: dune.id, title: "Dune Messiah", expectedRevision: 1).revision == 2)
        let bobInBooks = try await books.remote(for: bob)
        #expect(try await bobInBooks.load(id: emma.id) == emma)
        await #expect(throws: BookFailure.notAllowed) {
            _ = try await bobInBooks.save(id: emma.id, title: "Mine", expectedRevision: 1)
        }
        // Here the server-wide groups hold nothing now, and no policy names them.
        for (old, object, privilege) in [
            ("reader", "bookshelf.books", "SELECT"), ("editor", "bookshelf.saves", "INSERT"),
        ] {
            #expect(
                try await books.setup.execute(
                    """
                    SELECT has_schema_privilege($1, 'bookshelf', 'USAGE'), has_table_privilege($1, $2, $3),
                           has_column_privilege($1, 'bookshelf.books', 'title', 'UPDATE'),
                           has_function_privilege($1, 'bookshelf.search_page(text[], text, integer, integer, text, bigint, integer, tsquery, text, text)', 'EXECUTE')
                    """, ["bookshelf_" + old, object, privilege]) == [["f", "f", "f", "f"]])
        }
        #expect(
            try await books.setup.execute(
                """
                SELECT count(*) FROM pg_policies WHERE schemaname = 'bookshelf'
                    AND roles && ARRAY['bookshelf_reader', 'bookshelf_editor']::name[]
                """) == [["0"]])

        // books3, not migrated yet, still works on the server-wide groups; once migrated,
        // alice is a reader there and stays an editor in books.
        #expect(try await books3.remote(for: alice).account.role == .reader)
        #expect(try await books3.setup.migrate() == PostgresSchema.latestVersion)
        #expect(try await books3.remote(for: alice).account == Account(name: alice.name, role: .reader, scope: "main"))
        let again = try await books.remote(for: alice)
        #expect(try await again.save(id: dune.id, title: "Dune, Again", expectedRevision: 2).revision == 3)
        await #expect(throws: PostgresConnectFailure.noAccount(role: bob.name)) {
            _ = try await books3.remote(for: bob)
        }
    }

    @Test("an open session whose account is removed, or whose role is dropped, says the account no longer exists")
    func removedAccountSaysSo() async throws {
        // Issue 43, item 10: it said "permission denied for schema bookshelf".
        let catalog = try await PostgresTestCatalog.make()
        let erin = try await catalog.addAccount("erin", role: .editor, scope: "main")
        let frank = try await catalog.addAccount("frank", role: .reader, scope: "main")
        let dune = try await catalog.addBooks([NewBook(title: "Dune")], scope: "main")[0]
        let erinSession = try await catalog.remote(for: erin)
        let frankSession = try await catalog.remote(for: frank)
        try await catalog.setup.removeAccount(named: erin.name)
        _ = try await catalog.setup.execute("DROP ROLE \(frank.name)")
        for session in [erinSession, frankSession] {
            do {
                _ = try await session.load(id: dune.id)
                Issue.record("a removed account still reads")
            } catch let BookFailure.storeUnavailable(reason) {
                #expect(reason.contains("this account no longer exists in the catalog"), "\(reason)")
            }
        }
    }

    @Test("a password in the connection string is its user's alone: another account is asked for its own")
    func stringPasswordBelongsToItsUser() async throws {
        // Issue 36 item 10 / 43 item 9: switching from alice to carol must not send alice's password.
        let catalog = try await PostgresTestCatalog.make()
        let account = Account(name: PostgresTestCluster.passwordRole, role: .editor, scope: "main")
        try await catalog.setup.addAccount(account, password: "shared secret")
        let alice = try await catalog.addAccount("alice", role: .editor, scope: "main")
        let server = catalog.connector(for: alice).connectionString
        let withPassword = PostgresConnector(server + " password='shared secret'", connectTimeoutSeconds: 5)
        #expect(try await PostgresRemote.connect(withPassword).account == alice)
        await #expect(throws: PostgresConnectFailure.passwordRequired) {
            _ = try await PostgresRemote.connect(withPassword.signingIn(as: account.name))
        }
        #expect(
            try await PostgresRemote.connect(withPassword.signingIn(as: account.name), password: "shared secret")
                .account == account)
    }

    @Test("setup is idempotent and refuses to make a superuser an account")
    func setupIdempotent() async throws {
        let catalog = try await PostgresTestCatalog.make()
        #expect(try await catalog.setup.migrate() == PostgresSchema.latestVersion)
        let account = try await catalog.addAccount("editor", role: .editor, scope: "main")
        try await catalog.setup.prepare(
            accounts: [account], samples: ["main": [NewBook(title: "One"), NewBook(title: "Two")]])
        try await catalog.setup.prepare(
            accounts: [account], samples: ["main": [NewBook(title: "One"), NewBook(title: "Two")]])
        let count = try await catalog.setup.execute("SELECT count(*) FROM bookshelf.books")
        #expect(count.first?[0] == "2")
        let versions = try await catalog.setup.execute("SELECT count(*), max(version) FROM bookshelf.schema_version")
        #expect(versions.first == ["1", String(PostgresSchema.latestVersion)])
        await #expect(throws: PostgresSetupFailure.privilegedRole("postgres")) {
            try await catalog.setup.addAccount(Account(name: "postgres", role: .reader, scope: "main"))
        }
        await #expect(throws: PostgresSetupFailure.invalidAccountName("x\"; DROP")) {
            try await catalog.setup.addAccount(Account(name: "x\"; DROP", role: .reader, scope: "main"))
        }
        // Demoting an editor takes effect in the database.
        let demoted = Account(name: account.name, role: .reader, scope: "main")
        try await catalog.setup.addAccount(demoted)
        let remote = try await catalog.remote(for: demoted)
        #expect(remote.account.role == .reader)
        let first = try await catalog.setup.execute("SELECT min(id) FROM bookshelf.books")
        let id = try #require(first.first?[0].flatMap { Int($0) })
        await #expect(throws: BookFailure.notAllowed) {
            try await remote.save(id: id, title: "Changed", expectedRevision: 1)
        }
    }
}
