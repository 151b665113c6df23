import BookCatalog
import Foundation

/// Whether a session's LISTEN is heard through a connection string: whether the statements a
/// client sends after its LISTEN run on the server session that listens. Through a pooler in
/// transaction mode (PgBouncer's `pool_mode = transaction`) each transaction may run on another
/// server connection, so the LISTEN stays behind on one that the next client is given, and the
/// notifications go to whoever holds it. Bookshelf does not depend on them (the change check
/// asks the database what changed, once a second), but an operator should know that the
/// freshness of other sessions' saves is the check's, not the notifications'.
public enum ListenHearing: Sendable, Equatable, CustomStringConvertible {
    case heard
    /// Another client's transaction ran on the server session that listened, or the client's
    /// own next statement ran on one that does not.
    case notHeard
    /// The probe could not run (no host accepts writes, say): nothing is said.
    case unknown(String)

    public var description: String {
        switch self {
        case .heard: "LISTEN is heard: change notices arrive as other sessions save."
        case .notHeard:
            "LISTEN cannot be heard through this connection string: the statements after it run on "
                + "other server connections (a pooler in transaction mode, such as PgBouncer's "
                + "pool_mode = transaction). Other sessions' saves still show within about a second, "
                + "through the change check, which does not need notifications."
        case let .unknown(reason): "Whether LISTEN is heard is unknown: \(reason)"
        }
    }
}

extension ListenHearing {
    /// Asks the way a session would be pooled, with two clients on the string's read-write host:
    /// the first LISTENs on a channel of its own; the second opens a transaction and looks for
    /// that channel among its server session's; then the first looks for it in its next
    /// statement. A pooler in transaction mode hands the listening server connection to the
    /// second client (PgBouncer reuses the connection released last), or, when it hands it
    /// another, the first client's next statement runs elsewhere. Either shows the LISTEN is
    /// not where the client is. Changes nothing, and ends both clients.
    public static func check(_ connector: PostgresConnector) async -> ListenHearing {
        let worker = PostgresWorker(label: "bookshelf.postgres.listen-probe")
        do {
            return try await worker.perform {
                let listener = try PostgresConnection(connector, password: nil)
                let other = try PostgresConnection(connector, password: nil)
                let channel = "bookshelf_listen_probe_" + UUID().uuidString.prefix(8).lowercased()
                _ = try PostgresSession.read(listener.executeQuoted("LISTEN " + listener.quotedIdentifier(channel)))
                let listening = "SELECT ($1 = ANY (ARRAY(SELECT pg_listening_channels())))::text"
                _ = try PostgresSession.read(other.execute("BEGIN"))
                defer { _ = other.execute("ROLLBACK") }
                let seenByOther = try PostgresSession.read(other.execute(listening, [channel])).rows.first?[0]
                if seenByOther == "true" { return .notHeard }
                let seenByListener = try PostgresSession.read(listener.execute(listening, [channel])).rows.first?[0]
                _ = listener.execute("UNLISTEN *")
                return seenByListener == "true" ? .heard : .notHeard
            }
        } catch {
            return .unknown(PostgresAccountConnector.oneLine(String(describing: error)))
        }
    }
}
