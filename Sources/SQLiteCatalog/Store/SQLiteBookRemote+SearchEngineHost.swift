import BookCatalog
import Foundation
import SearchEngine

// The remote as the search engine's host: the search API it hands to the engine, and what a host
// gives the engine (a page's rows read in the search's read, and what a failure means to a user).

extension SQLiteBookRemote {
    /// Answers from the search index when it is ready, and otherwise from the books table
    /// (`BooksTableSearch`, the same answer more slowly), so a search never waits for a build.
    /// The page says which way answered (`SearchPage.source`).
    public func search(_ query: SearchQuery) async throws -> SearchPage {
        try await answerSearch(query)
    }

    /// The same search answered without the index, as while one is being built: for tests
    /// and benchmarks that compare both ways.
    public func searchWithoutIndex(_ query: SearchQuery) async throws -> SearchPage {
        try await answerSearchWithoutIndex(query)
    }

    /// Waits until the index being built (if any) is built and stored: for a program about to
    /// exit after searches answered without it, so that the next program finds a current index.
    public func finishIndexPreparation() async {
        await finishPreparingIndex()
    }

    /// Why the catalog cannot be trusted, once a read found it damaged: for a program that
    /// answered before the index build that found it had finished (the answer was then partial).
    public var catalogDamage: String? { damageFound }

    /// How the search index in use was obtained, waiting until there is one, and whether this
    /// remote built it and stored it in the catalog for the next connection.
    public func searchIndexReport() async throws -> (report: SearchIndexReport, snapshotStored: Bool) {
        try await installedIndexReport()
    }

    // MARK: SearchEngineHost

    /// The rows of `ids` (`SearchEngineHost.pageRows`): of this scope, in the search's read.
    package func pageRows(
        ids: [Int], total: Int, query: SearchQuery, namedByIndex: Bool, whileIndexing: Bool, countFollows: Bool
    ) throws -> SearchPage {
        let records = try ids.map { id in
            guard
                let record = try connection.queryFirst(
                    "SELECT \(BookRow.columns) FROM books WHERE id = ?1 AND scope = ?2",
                    [.int(id), .text(account.scope)], row: BookRow.record)
            else {
                // In one read transaction, an id the books table's own index gave is a book.
                guard namedByIndex else {
                    throw CatalogDamage("the title index names book \(id), which the table lacks")
                }
                throw SearchIndexDamage("the index names book \(id), which this scope does not have")
            }
            return record
        }
        let totalCount =
            countFollows
            ? .counting(atLeast: max(total, query.offset + records.count))
            : TotalCount(
                counted: total, offset: query.offset, shown: records.count,
                hasMore: query.offset + records.count < total)
        return SearchPage(records: records, totalCount: totalCount, answeredWhileIndexing: whileIndexing)
    }

    /// What a search reports for a preparation that failed.
    package func failure(preparing error: any Error) -> BookFailure {
        if let failure = error as? BookFailure { return failure }
        if CatalogDamage.isDamage(error) { return CatalogDamage.failure(path: catalogPath) }
        if let failure = error as? SQLiteError { return failure.bookFailure(catalogPath: catalogPath) }
        if let failure = error as? SQLiteCatalogError { return BookFailure.storeUnavailable(failure.description) }
        return BookFailure.storeUnavailable(String(describing: error))
    }

    package func mappingSourceFailures<T>(_ body: () throws -> T) throws -> T {
        try mappingFailures(at: catalogPath, body)
    }

    package func damageFailure() -> BookFailure { CatalogDamage.failure(path: catalogPath) }

    package func damageExplanation() -> String { CatalogDamage.explanation(path: catalogPath) }

    package func isDamage(_ error: any Error) -> Bool { CatalogDamage.isDamage(error) }
}
