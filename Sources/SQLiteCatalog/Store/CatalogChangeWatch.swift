import BookCatalog

/// Whether another connection committed what a remote's user should hear of: a change to the
/// books or to the accounts. `PRAGMA data_version` moves only for other connections' commits,
/// and commits that change neither (a stored search index's record) are no news.
struct CatalogChangeWatch {
    /// `PRAGMA data_version` at the last check.
    private var seenDataVersion: Int
    /// What the last check saw.
    private var seenState: CatalogState

    init(_ connection: Connection) {
        seenDataVersion = (try? connection.queryFirst("PRAGMA data_version") { $0.int(0) }) ?? 0
        seenState = (try? CatalogState(connection)) ?? CatalogState(sequence: -1, accounts: "")
    }

    /// A notice when another connection changed the books or the accounts since the last check.
    mutating func check(_ connection: Connection) throws -> ChangeNotice? {
        let version = try connection.queryFirst("PRAGMA data_version") { $0.int(0) } ?? 0
        guard version != seenDataVersion else { return nil }
        seenDataVersion = version
        let state = try CatalogState(connection)
        defer { seenState = state }
        return state != seenState ? .unspecified : nil
    }

    /// This connection's own commit, given change marker `sequence`, is no news to it, as long as
    /// nobody else's came between the last check and this one.
    mutating func sawOwnCommit(sequence: Int) {
        if sequence == seenState.sequence + 1 { seenState.sequence = sequence }
    }

    /// What a change notice is about, read in one statement.
    struct CatalogState: Equatable {
        var sequence: Int
        var accounts: String

        init(sequence: Int, accounts: String) {
            self.sequence = sequence
            self.accounts = accounts
        }

        init(_ connection: Connection) throws {
            (sequence, accounts) =
                try connection.queryFirst(
                    """
                    SELECT (SELECT coalesce(max(change_seq), 0) FROM books),
                           (SELECT coalesce(group_concat(name || char(31) || role || char(31) || scope, char(30)), '')
                            FROM (SELECT * FROM accounts ORDER BY name))
                    """
                ) { ($0.int(0), $0.text(1)) } ?? (0, "")
        }
    }
}
