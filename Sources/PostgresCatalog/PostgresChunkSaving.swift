import BookCatalog
import Foundation

/// A chunk of a batch's saves in one transaction (`ChunkSavingRemote`): one statement for
/// all its books (`PostgresStatements.saveChunk`), each with the compare-and-set of a single
/// save and its operation and batch recorded, one commit for them all.
extension PostgresRemote: ChunkSavingRemote {
    public nonisolated var chunkStopping: ChunkStopping { .wholeChunk }

    public func save(_ unchecked: [SaveRequest], inBatch batch: BatchID, until stop: BatchStop) async throws
        -> [ChunkSaveResult]
    {
        let requests = try unchecked.map { try $0.validated() }
        let chunk = PostgresChunk(
            requests: requests, parameters: try requests.map { try Self.saveParameters($0, batch: batch) })
        let session = self.session
        return try await worker.perform { try chunk.save(on: session, until: stop) }
    }

    public func load(ids: [Int]) async throws -> [BookRecord] {
        guard !ids.isEmpty else { return [] }
        let list = "{" + ids.map(String.init).joined(separator: ",") + "}"
        let session = self.session
        let note = ReadRouteNote.current
        return try await performRead { abandoned in
            let rows = try session.readingBooks(noting: note, abandoned: abandoned) {
                try PostgresSession.read($0.execute(PostgresStatements.loadMany, [list]))
            }
            let records = try rows.rows.map(PostgresRemote.record)
            let byID = Dictionary(records.map { ($0.id, $0) }) { first, _ in first }
            return ids.compactMap { byID[$0] }
        }
    }
}

/// The saves of one chunk, checked and turned into the save statement's parameters.
private struct PostgresChunk: Sendable {
    let requests: [SaveRequest]
    let parameters: [[String?]]

    /// Thrown inside the transaction when the server refused the chunk's statement (a check
    /// the catalog makes and this build does not, another account's batch, a cancelled
    /// statement): the transaction is aborted.
    private struct Refused: Error {}

    /// On the session's worker. A compare-and-set that matched no row is that book's outcome,
    /// and the others commit. A statement the server refused is rolled back and the chunk saved
    /// again one book at a time, each as a single save, so that the refusal is that book's
    /// alone. A savepoint per book would keep the others, but each is a subtransaction with an
    /// id of its own once it writes, and past 64 in one transaction every snapshot on the
    /// server has to look them up (`pg_subtrans`): a cost on everyone's reads for a refusal
    /// that is rare.
    func save(on session: PostgresSession, until stop: BatchStop) throws -> [ChunkSaveResult] {
        guard Set(requests.map(\.id)).count == requests.count else {
            // The statement updates a book once; a book named twice is saved twice, in order.
            return oneAtATime(on: session, until: stop)
        }
        do {
            return try inOneTransaction(on: session, until: stop)
        } catch is Refused {
            return oneAtATime(on: session, until: stop)
        }
    }

    /// A throw means nothing committed (the transaction was rolled back, or its connection
    /// died before COMMIT was sent), except `outcomeUnknown`: the connection died after it.
    /// The stop is asked before the statement and before the commit (`ChunkStopping.wholeChunk`):
    /// stopped, the chunk is rolled back and none of it is taken.
    private func inOneTransaction(on session: PostgresSession, until stop: BatchStop) throws -> [ChunkSaveResult] {
        if stop.isStopped { return [] }
        let values = JSONStringArray.text(ofRows: parameters)
        let connection = try session.live()
        try session.rowsInTransaction(connection.execute("BEGIN"))
        var results: [ChunkSaveResult] = []
        var transaction: String?
        do {
            let answer = Self.run(PostgresStatements.saveChunk, [values], on: connection, cancelledBy: stop)
            if case .failure(.server) = answer {
                // Cancelled by the stop, or refused.
                if stop.isStopped { return try rolledBack(connection, session) }
                throw Refused()
            }
            var saved: [Int: BookRecord] = [:]
            for row in try session.rowsInTransaction(answer).rows {
                let record = try PostgresRemote.record(row)
                saved[record.id] = record
                if row.count > PostgresStatements.recordWidth { transaction = row[PostgresStatements.recordWidth] }
            }
            for request in requests {
                if let record = saved[request.id] {
                    results.append(.success(record))
                } else {
                    results.append(
                        .failure(try PostgresRemote.whyNotSaved(request, on: session, refusedByGrant: false)))
                }
            }
            if stop.isStopped { return try rolledBack(connection, session) }
        } catch {
            _ = connection.execute("ROLLBACK")
            session.dropIfBroken()
            throw error
        }
        try session.commitOwnWrite(transaction, on: connection)
        return results
    }

    /// `sql` run on `connection`, cancelled on the server if the batch is stopped meanwhile.
    /// The cancel is sent from another thread (it opens a connection of its own), and closed
    /// before the answer is used, so that no cancel can reach a later statement.
    private static func run(
        _ sql: String, _ parameters: [String?], on connection: PostgresConnection, cancelledBy stop: BatchStop
    ) -> Result<PostgresRows, PostgresCallFailure> {
        let canceller = connection.canceller()
        defer { canceller.close() }
        return stop.cancelling(with: { DispatchQueue.global().async { canceller.cancel() } }) {
            connection.execute(sql, parameters)
        }
    }

    /// Nothing of the chunk taken: its transaction rolled back.
    private func rolledBack(_ connection: PostgresConnection, _ session: PostgresSession) throws -> [ChunkSaveResult] {
        try session.rowsInTransaction(connection.execute("ROLLBACK"))
        return []
    }

    /// The chunk saved again after a refusal, one book at a time (`PostgresRemote.saveAlone`),
    /// asking the stop before each. Each save commits alone, so a failure of any kind is its
    /// book's own outcome.
    private func oneAtATime(on session: PostgresSession, until stop: BatchStop) -> [ChunkSaveResult] {
        var results: [ChunkSaveResult] = []
        for (index, request) in requests.enumerated() {
            if stop.isStopped { break }
            do {
                results.append(
                    .success(try PostgresRemote.saveAlone(request, parameters: parameters[index], on: session)))
            } catch {
                results.append(.failure(error as? BookFailure ?? .storeUnavailable(String(describing: error))))
            }
        }
        return results
    }
}
