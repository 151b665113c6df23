import BookCatalog
import CatalogContract
import CatalogSimulation
import Testing

/// The in-memory adapter: the reference every other adapter must agree with.
struct MemoryFixture: ContractFixture {
    func makeCatalog(books: [SeedBook], accounts: [Account]) async throws -> any ContractCatalog {
        let catalog = MemoryCatalog()
        accounts.forEach(catalog.addAccount)
        let stored = books.map { catalog.addBook(title: $0.title, author: $0.author, scope: $0.scope) }
        return MemoryContractCatalog(catalog: catalog, books: stored)
    }
}

struct MemoryContractCatalog: ContractCatalog {
    let catalog: MemoryCatalog
    let books: [BookRecord]

    func remote(for account: String) async throws -> any ContractRemote {
        guard let found = catalog.account(named: account) else { throw BookFailure.notAllowed }
        return MemoryBookRemote(catalog: catalog, account: found)
    }
}

@Suite struct MemoryContractTests {
    @Test(arguments: ContractCheck.all)
    func contract(_ check: ContractCheck) async throws {
        try await check.run(MemoryFixture())
    }

    @Test(arguments: ContractCheck.batches)
    func batches(_ check: ContractCheck) async throws {
        try await check.run(MemoryFixture())
    }
}
