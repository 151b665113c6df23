import BookCatalog
import CatalogContract
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// The PostgreSQL adapter: each catalog is a fresh database on the shared test cluster,
/// set up by `PostgresSetup`, and each remote is a new connection signed in as the account's
/// own login role, so the database's grants and policies are what the suite checks.
struct PostgresFixture: ContractFixture {
    func makeCatalog(books: [SeedBook], accounts: [Account]) async throws -> any ContractCatalog {
        let catalog = try await PostgresTestCatalog.make()
        var roles: [String: Account] = [:]
        for account in accounts {
            roles[account.name] = try await catalog.addAccount(account.name, role: account.role, scope: account.scope)
        }
        var stored: [BookRecord] = []
        // One import per run of same-scope books keeps the seeding order in the ids.
        var start = books.startIndex
        while start < books.endIndex {
            let scope = books[start].scope
            let end = books[start...].firstIndex { $0.scope != scope } ?? books.endIndex
            stored += try await catalog.addBooks(
                books[start..<end].map { NewBook(title: $0.title, author: $0.author) },
                scope: scope)
            start = end
        }
        return PostgresContractCatalog(catalog: catalog, roles: roles, books: stored)
    }
}

struct PostgresContractCatalog: ContractCatalog {
    let catalog: PostgresTestCatalog
    /// Contract account name -> the account as created (role names are cluster-wide, so
    /// each test database gets its own prefixed roles).
    let roles: [String: Account]
    let books: [BookRecord]

    func remote(for account: String) async throws -> any ContractRemote {
        guard let role = roles[account] else { throw BookFailure.notAllowed }
        let remote = try await catalog.remote(for: role)
        return RenamedRemote(
            remote: remote,
            account: Account(
                name: account, role: remote.account.role,
                scope: remote.account.scope))
    }
}

/// A PostgreSQL remote that reports the contract's account name instead of its prefixed
/// role name; everything else goes straight through.
struct RenamedRemote: ContractRemote, ChunkSavingRemote {
    let remote: PostgresRemote
    let account: Account

    func load(id: Int) async throws -> BookRecord { try await remote.load(id: id) }
    func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        try await remote.save(id: id, title: title, expectedRevision: expectedRevision)
    }
    func save(_ request: SaveRequest) async throws -> BookRecord { try await remote.save(request) }
    func search(_ query: SearchQuery) async throws -> SearchPage { try await remote.search(query) }
    func bookCount() async throws -> Int { try await remote.bookCount() }
    func checkForChanges() async throws -> ChangeNotice? { try await remote.checkForChanges() }
    func committedRevision(of operation: UUID) async throws -> Int? {
        try await remote.committedRevision(of: operation)
    }
    /// History names accounts by role name: the prefixed role becomes the contract's name.
    func history(of id: Int) async throws -> [BookRevision] {
        try await remote.history(of: id).map { revision in
            BookRevision(
                record: revision.record, account: revision.account.map(contractName),
                savedAt: revision.savedAt, operation: revision.operation, batch: revision.batch)
        }
    }
    func beginBatch(_ start: BatchStart) async throws -> BatchID { try await remote.beginBatch(start) }
    func save(_ request: SaveRequest, inBatch batch: BatchID) async throws -> BookRecord {
        try await remote.save(request, inBatch: batch)
    }
    func saveAll(_ requests: [SaveRequest], inNewBatch start: BatchStart) async throws -> AllOrNothingResult {
        try await remote.saveAll(requests, inNewBatch: start)
    }
    func revisions(ofBatch batch: BatchID) async throws -> [BatchRevision] {
        try await remote.revisions(ofBatch: batch)
    }

    var chunkStopping: ChunkStopping { remote.chunkStopping }
    func save(_ requests: [SaveRequest], inBatch batch: BatchID, until stop: BatchStop) async throws
        -> [ChunkSaveResult]
    {
        try await remote.save(requests, inBatch: batch, until: stop)
    }
    func load(ids: [Int]) async throws -> [BookRecord] { try await remote.load(ids: ids) }

    private func contractName(_ role: String) -> String {
        guard let underscore = role.firstIndex(of: "_"), role.hasPrefix("u") else { return role }
        return String(role[role.index(after: underscore)...])
    }
}

@Suite(.enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"), .tags(.postgres))
struct PostgresContractTests {
    @Test(arguments: ContractCheck.all)
    func contract(_ check: ContractCheck) async throws {
        try await check.run(PostgresFixture())
    }

    @Test(arguments: ContractCheck.batches)
    func batches(_ check: ContractCheck) async throws {
        try await check.run(PostgresFixture())
    }

    @Test(arguments: ContractCheck.chunks)
    func chunks(_ check: ContractCheck) async throws {
        try await check.run(PostgresFixture())
    }
}
