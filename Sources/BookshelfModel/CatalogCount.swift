extension BookshelfModel {
    /// Counts the books the current account sees with `count` (given the account's name), as
    /// an effect of its own slot: the number reaches `publish` only if the session that asked
    /// is still current, so a count of the old account never shows after a switch. Returns
    /// the request number, or nil without a session.
    @discardableResult
    public func countBooks(
        with count: @escaping @Sendable (String) async -> Int?,
        publish: @escaping @MainActor @Sendable (_ account: String, _ books: Int) -> Void
    ) -> Int? {
        guard repository != nil, let account = accountName else { return nil }
        return launch(
            .catalogCount,
            Effect(
                .catalogCount, { await count(account) },
                // Not logged: the request log is for what keys and change notices start.
                logged: { _ in false },
                publish: { books, _ in
                    if let books { publish(account, books) }
                    return nil
                }))
    }
}
