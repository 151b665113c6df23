import BookCatalog

/// A chunk of a batch's saves in one transaction (`ChunkSavingRemote`): each book with the
/// statement of a single save (its compare-and-set, its operation and batch recorded with it),
/// one commit for them all.
extension PostgresRemote: ChunkSavingRemote {
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

    /// Thrown inside the transaction when the server refused a book's statement: the
    /// transaction is aborted, and the book is the `index`th of the chunk.
    private struct Refused: Error {
        let index: Int
    }

    /// On the session's worker. A compare-and-set that matched no row is that book's outcome,
    /// and the chunk goes on. A statement the server refused (a check the catalog makes and
    /// this build does not, another account's batch, a cancelled statement) aborts the whole
    /// transaction: it is rolled back and the chunk saved again one book at a time, each as a
    /// single save, so that the refusal is that book's alone. A savepoint per book would keep
    /// the transaction, but each is a subtransaction with an id of its own once it writes, and
    /// past 64 in one transaction every snapshot on the server has to look them up
    /// (`pg_subtrans`): a cost on everyone's reads for a refusal that is rare.
    func save(on session: PostgresSession, until stop: BatchStop) throws -> [ChunkSaveResult] {
        do {
            return try inOneTransaction(on: session, until: stop)
        } catch let refused as Refused {
            return oneAtATime(on: session, until: stop, askedUpTo: refused.index)
        }
    }

    /// A throw means nothing committed (the transaction was rolled back, or its connection
    /// died before COMMIT was sent), except `outcomeUnknown`: the connection died after it.
    private func inOneTransaction(on session: PostgresSession, until stop: BatchStop) throws -> [ChunkSaveResult] {
        let connection = try session.live()
        try session.rowsInTransaction(connection.execute("BEGIN"))
        var results: [ChunkSaveResult] = []
        var transaction: String?
        // The save statement is parsed once for the chunk's books, not once a book (and the
        // server keeps one plan for it): again only after another statement replaced it.
        var prepared = false
        do {
            for (index, request) in requests.enumerated() {
                // A stop takes effect at the next book, inside the chunk as between chunks.
                if stop.isStopped { break }
                if !prepared {
                    let parsed = connection.prepare(PostgresStatements.save)
                    if case .failure(.server) = parsed { throw Refused(index: index) }
                    _ = try session.rowsInTransaction(parsed)
                    prepared = true
                }
                let answer = connection.executePrepared(parameters[index])
                if case .failure(.server) = answer { throw Refused(index: index) }
                let rows = try session.rowsInTransaction(answer)
                guard let row = rows.rows.first else {
                    results.append(
                        .failure(try PostgresRemote.whyNotSaved(request, on: session, refusedByGrant: false)))
                    // Its question to the server took the place of the save statement.
                    prepared = false
                    continue
                }
                results.append(.success(try PostgresRemote.record(row)))
                if row.count > PostgresStatements.recordWidth { transaction = row[PostgresStatements.recordWidth] }
            }
        } catch {
            _ = connection.execute("ROLLBACK")
            session.dropIfBroken()
            throw error
        }
        try session.commitOwnWrite(transaction, on: connection)
        return results
    }

    /// The chunk saved again after a refusal, one book at a time (`PostgresRemote.saveAlone`).
    /// The books up to the refused one were taken once already (the stop said no for each):
    /// the stop is asked again only for those after it. Each save commits alone, so a failure
    /// of any kind is its book's own outcome.
    private func oneAtATime(on session: PostgresSession, until stop: BatchStop, askedUpTo asked: Int)
        -> [ChunkSaveResult]
    {
        var results: [ChunkSaveResult] = []
        for (index, request) in requests.enumerated() {
            if index > asked && stop.isStopped { break }
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
