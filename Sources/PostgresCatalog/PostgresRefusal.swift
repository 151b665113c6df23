/// A server that answers but will not take the session, said in the app's words: a standby
/// (read-only while it recovers), a server that opens only read-only sessions, or one whose
/// connections are all taken. None of them is a lost server, and libpq's raw text ("server is
/// in hot standby mode", "remaining connection slots are reserved…") tells the user neither
/// what happened nor what to do.
enum PostgresRefusal {
    static let standby =
        "the server is a standby (read-only, in recovery): saves cannot be made there; connect to the primary"
    static let readOnly =
        "the server opens only read-only sessions for this account (default_transaction_read_only is on): "
        + "saves cannot be made there"
    static let full =
        "the server is full: all its connections are taken (its max_connections setting); "
        + "try again later, or ask its administrator to raise max_connections or to put a pooler in front"

    /// The words for a connection attempt libpq gave up on, or nil to keep libpq's message.
    /// libpq gives no SQLSTATE for a refused connection (there is no result to ask), so its
    /// messages are matched, in English as they are said without a translation installed:
    /// the server's for SQLSTATE 53300 (too_many_connections) past `max_connections`, and
    /// libpq's own when `target_session_attrs=read-write` (every connection for saves and
    /// LISTEN) meets a read-only session. That one is said alike for a standby and for
    /// `default_transaction_read_only`, so the server is asked (`pg_is_in_recovery()`) on a
    /// connection that does not need writes: only then, so an unreachable server costs no more.
    static func connectFailure(_ message: String, connector: PostgresConnector, password: String?) -> String? {
        if message.contains("sorry, too many clients already")
            || message.contains("remaining connection slots are reserved")
        {
            return full
        }
        guard message.contains("session is read-only") else { return nil }
        guard let probe = try? PostgresConnection(connector, password: password, purpose: .standbyReads),
            case let .success(rows) = probe.execute("SELECT pg_is_in_recovery()")
        else { return readOnly }
        return rows.rows.first?[0] == "t" ? standby : readOnly
    }
}
