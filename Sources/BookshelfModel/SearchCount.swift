import BookCatalog

extension BookshelfModel {
    /// Counts the books the current account sees, through the repository (every store counts),
    /// as an effect of its own slot: the number reaches the state only if the session that
    /// asked is still current, so a count of the old account never shows after a switch, and
    /// a new session shows none until its own answers. A model made with `countsBooks` asks
    /// when a session begins and on every change notice (another program may have imported
    /// books); a failed count keeps the last one. Returns the request number, or nil without a
    /// session.
    @discardableResult
    public func countBooks() -> Int? {
        guard let repository else { return nil }
        return launch(
            .catalogCount,
            Effect(
                .catalogCount, { try await repository.bookCount() },
                // Not logged: the request log is for what keys and change notices start.
                logged: { _ in false },
                publish: { [self] books, _ in
                    searchPart.accountBooks = books
                    return nil
                }))
    }

    /// Counts again if this model keeps the header's count (`countsBooks`).
    func recountBooks() {
        if countsBooks { countBooks() }
    }
}
