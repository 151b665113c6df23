import BookCatalog
import Foundation

/// Everything a catalog adapter offers through one account.
public typealias ContractRemote = SearchableBookRemote & ChangeDetectingRemote & SaveOutcomeRecordingRemote
    & AccountAwareRemote
    & HistoryKeepingRemote

/// Makes fresh catalogs of one adapter for the contract suite. To run the suite against
/// another adapter, implement this and add one parameterised test over `ContractCheck.all`
/// (see `MemoryContractTests` and `SQLiteContractTests`).
public protocol ContractFixture: Sendable {
    /// A fresh, empty catalog holding exactly these accounts and books, in this order.
    func makeCatalog(books: [SeedBook], accounts: [Account]) async throws -> any ContractCatalog
}

/// One fresh catalog made by a fixture.
public protocol ContractCatalog: Sendable {
    /// The books as stored, in seeding order (ids as the store assigned them, revision 1).
    var books: [BookRecord] { get }
    /// A new remote (a new connection, for stores that have them) for the named account.
    func remote(for account: String) async throws -> any ContractRemote
}

/// One named check of the contract, run against any fixture.
public struct ContractCheck: Sendable, CustomStringConvertible {
    public let description: String
    public let run: @Sendable (any ContractFixture) async throws -> Void

    public init(_ description: String, _ run: @escaping @Sendable (any ContractFixture) async throws -> Void) {
        self.description = description
        self.run = run
    }
}
