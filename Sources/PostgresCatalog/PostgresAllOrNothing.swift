import BookCatalog

extension PostgresRemote {
    public func saveAll(_ requests: [SaveRequest], inNewBatch start: BatchStart) async throws -> AllOrNothingResult {
        let batch = PostgresAllOrNothing(requests: try requests.map { try $0.validated() }, start: start)
        let session = self.session
        return try await worker.perform { try batch.save(on: session) }
    }
}

/// The saves of an all-or-nothing batch, checked: a new batch and each book with the statement
/// of a single save (its compare-and-set, its operation and batch recorded with it), in one
/// transaction that commits all of them or none.
private struct PostgresAllOrNothing: Sendable {
    let requests: [SaveRequest]
    let start: BatchStart

    /// Thrown inside the transaction when the server refused a save's statement: the
    /// transaction is aborted, and nothing more can be asked in it, not even why.
    private struct Aborted: Error {
        let request: SaveRequest
        let error: PostgresServerError
    }

    /// On the session's worker. Why a save was refused is asked only after the transaction is
    /// rolled back: a read in a transaction the server aborted fails, and the refusal would
    /// come back as an unavailable catalog. A throw means nothing committed (the transaction
    /// was rolled back, or its connection died before COMMIT was sent), except
    /// `outcomeUnknown`: the connection died after it.
    func save(on session: PostgresSession) throws -> AllOrNothingResult {
        let connection = try session.live()
        try session.rowsInTransaction(connection.execute("BEGIN"))
        let batch: BatchID
        var saved: [BookRecord] = []
        // Compare-and-sets that matched no row: the transaction goes on, to name every such book.
        var unmatched: [SaveRequest] = []
        var transaction: String?
        do {
            batch = try PostgresRemote.insertBatch(start, on: connection)
            // Parsed once for every book (`PostgresConnection.prepare`): nothing else runs on the
            // connection until the last of them.
            _ = try session.rowsInTransaction(connection.prepare(PostgresStatements.save))
            for request in requests {
                let parameters = try PostgresRemote.saveParameters(request, batch: batch)
                let answer = connection.executePrepared(parameters)
                if case let .failure(.server(error)) = answer { throw Aborted(request: request, error: error) }
                let rows = try session.rowsInTransaction(answer)
                guard let row = rows.rows.first else {
                    unmatched.append(request)
                    continue
                }
                saved.append(try PostgresRemote.record(row))
                if row.count > PostgresStatements.recordWidth { transaction = row[PostgresStatements.recordWidth] }
            }
        } catch let aborted as Aborted {
            Self.rollBack(connection, on: session)
            var reasons = try Self.reasons(unmatched, on: session)
            reasons[aborted.request.id] = try PostgresRemote.failure(of: aborted.request, aborted.error, on: session)
            return .refused(reasons)
        } catch {
            Self.rollBack(connection, on: session)
            throw error
        }
        guard unmatched.isEmpty else {
            Self.rollBack(connection, on: session)
            return .refused(try Self.reasons(unmatched, on: session))
        }
        try session.commitOwnWrite(transaction, on: connection)
        return .committed(batch, saved)
    }

    /// Why each of `requests` matched no row, asked outside the transaction.
    private static func reasons(_ requests: [SaveRequest], on session: PostgresSession) throws -> [Int: BookFailure] {
        var reasons: [Int: BookFailure] = [:]
        for request in requests {
            reasons[request.id] = try PostgresRemote.whyNotSaved(request, on: session, refusedByGrant: false)
        }
        return reasons
    }

    /// Ends the transaction without committing. A connection that died meanwhile took the
    /// transaction with it; it is dropped, for the next read to reconnect.
    private static func rollBack(_ connection: PostgresConnection, on session: PostgresSession) {
        _ = connection.execute("ROLLBACK")
        session.dropIfBroken()
    }
}
