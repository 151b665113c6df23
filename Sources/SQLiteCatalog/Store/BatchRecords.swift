import BookCatalog

/// The batches of one account's scope (a bulk edit's saves, recorded together so that they can
/// be listed and undone), in the caller's write transaction.
struct BatchRecords {
    let connection: Connection
    let account: Account

    /// A new batch of this account, in its scope; refused to a reader, and for an undo of a
    /// batch this scope does not have.
    func begin(_ start: BatchStart) throws -> Result<BatchID, BookFailure> {
        guard try BookSaving(connection: connection, account: account).isEditor() else { return .failure(.notAllowed) }
        if let undone = start.undoes {
            let visible =
                try connection.queryFirst(
                    "SELECT 1 FROM batches WHERE id = ?1 AND scope = ?2", [.int(undone.number), .text(account.scope)]
                ) { _ in true } ?? false
            guard visible else { return .failure(.missing) }
        }
        let number = try connection.queryFirst(
            """
            INSERT INTO batches(scope, account, started_at, undoes) VALUES (?1, ?2, \(RevisionLog.nowMilliseconds), ?3)
            RETURNING id
            """,
            [.text(account.scope), .text(account.name), start.undoes.map { .int($0.number) } ?? .null]
        ) { $0.int(0) }
        guard let number else { return .failure(.invalidResponse) }
        return .success(BatchID(number))
    }

    /// Whether this account began `batch`: only the account that began a batch saves into it.
    func isOwned(_ batch: BatchID) throws -> Bool {
        try connection.queryFirst(
            "SELECT 1 FROM batches WHERE id = ?1 AND account = ?2 AND scope = ?3",
            [.int(batch.number), .text(account.name), .text(account.scope)]
        ) { _ in true } ?? false
    }
}
