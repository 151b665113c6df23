import BookCatalog
@testable import PostgresCatalog

/// A catalog for the bulk-save suites: `count` books ("Book 1"…, revision 1, no details) and
/// an editor of their scope.
struct PostgresBulkFixture {
    let catalog: PostgresTestCatalog
    let editor: Account
    let books: [BookRecord]

    init(count: Int) async throws {
        catalog = try await PostgresTestCatalog.make()
        editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        books = try await catalog.addBooks((1...count).map { NewBook(title: "Book \($0)") }, scope: "main")
    }

    /// The editor's remote and repository, with the server set to end their own connection while
    /// the statement that writes `book` runs (`ConnectionCut.duringStatement`; `duringCommit`
    /// moves the cut to the commit).
    func editorCut(whileWriting book: BookRecord) async throws -> (remote: PostgresRemote, repository: BookRepository) {
        try await ConnectionCut.prepare(catalog.setup)
        try await ConnectionCut.duringStatement(of: book.id, catalog.setup)
        let remote = try await catalog.remote(for: editor)
        return (remote, BookRepository(remote: remote))
    }
}

/// A catalog on a private server that counts each statement's runs and plans
/// (pg_stat_statements, loaded at the server's start): how often the save statement is planned.
/// Call `destroy()`.
struct PostgresCountedStatements {
    let cluster: PostgresTestCluster
    let catalog: PostgresTestCatalog

    init() async throws {
        cluster = try PostgresTestCluster.start(settings: [
            "shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track_planning=on",
        ])
        do {
            catalog = try await PostgresTestCatalog.make(on: cluster)
            _ = try await catalog.setup.execute("CREATE EXTENSION pg_stat_statements")
        } catch {
            cluster.destroy()
            throw error
        }
    }

    /// Forgets what was counted so far.
    func reset() async throws {
        _ = try await catalog.setup.execute("SELECT pg_stat_statements_reset()")
    }

    /// The runs and the plans of the save statement (`PostgresStatements.save`) since
    /// `reset()`, or of another whose text starts with `start` (`saveChunk`'s: "WITH wanted AS (").
    func saves(startingWith start: String = "WITH saved AS (") async throws -> (calls: Int, plans: Int) {
        let rows = try await catalog.setup.execute(
            "SELECT coalesce(sum(calls), 0)::text, coalesce(sum(plans), 0)::text FROM pg_stat_statements WHERE starts_with(query, $1)",
            [start])
        guard let row = rows.first, let calls = row[0].flatMap({ Int($0) }), let plans = row[1].flatMap({ Int($0) })
        else { throw ClusterFailure("no counts from pg_stat_statements") }
        return (calls, plans)
    }

    func destroy() { cluster.destroy() }
}
