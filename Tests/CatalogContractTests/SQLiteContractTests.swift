import BookCatalog
import CatalogContract
import Foundation
import SQLiteCatalog
import Testing

/// The SQLite adapter on a fresh file in a fresh temporary directory.
struct SQLiteFixture: ContractFixture {
    func makeCatalog(books: [SeedBook], accounts: [Account]) async throws -> any ContractCatalog {
        let directory = try TemporaryDirectory()
        let catalog = try SQLiteCatalog.open(path: directory.path("catalog.sqlite"), create: true)
        for account in accounts { try catalog.addAccount(account) }
        let stored = try books.map { try catalog.addBook(NewBook(title: $0.title, author: $0.author), scope: $0.scope) }
        return SQLiteContractCatalog(directory: directory, catalog: catalog, books: stored)
    }
}

struct SQLiteContractCatalog: ContractCatalog {
    let directory: TemporaryDirectory
    let catalog: SQLiteCatalog
    let books: [BookRecord]

    func remote(for account: String) async throws -> any ContractRemote {
        try catalog.remote(account: account)
    }
}

@Suite struct SQLiteContractTests {
    @Test(arguments: ContractCheck.all)
    func contract(_ check: ContractCheck) async throws {
        try await check.run(SQLiteFixture())
    }

    @Test(arguments: ContractCheck.batches)
    func batches(_ check: ContractCheck) async throws {
        try await check.run(SQLiteFixture())
    }

    @Test(arguments: ContractCheck.chunks)
    func chunks(_ check: ContractCheck) async throws {
        try await check.run(SQLiteFixture())
    }
}
