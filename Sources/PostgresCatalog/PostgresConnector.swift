import CLibPQ
import Foundation

/// Where and how to reach a PostgreSQL catalog, the PostgreSQL way: a URL
/// (`postgresql://user@host/db`) or a libpq keyword string (`host=... dbname=...`), with
/// anything left out taken from libpq's environment variables (PGHOST, PGDATABASE, PGUSER,
/// PGPASSFILE, ...) and defaults. The string is handed to libpq as it is; this type only adds
/// defaults that keep a lost server from hanging the app.
public struct PostgresConnector: Sendable, CustomStringConvertible {
    /// A URL, a keyword string, a bare database name, or empty for libpq's defaults.
    public let connectionString: String
    /// Seconds libpq may spend reaching the server (unless the string or PGCONNECT_TIMEOUT says).
    public var connectTimeoutSeconds: Int
    /// How long one statement may run. The server cancels it then; the client gives up a
    /// little later in case the server itself is unreachable.
    public var statementTimeout: Duration
    /// Shown in `pg_stat_activity`, so an administrator can tell Bookshelf sessions apart
    /// (libpq's `fallback_application_name`: the string's own name or PGAPPNAME wins).
    public var applicationName: String
    /// Where searches, pages and record loads are served (saves always go to the primary).
    public var reads: PostgresReads
    /// How long a standby read waits for the standby to replay the session's floor before it
    /// is served by the primary instead.
    public var standbyWait: Duration
    /// Told which server answered each read meant for a standby (for `--trace`), on the
    /// session's worker: keep it short.
    public var onReadRoute: (@Sendable (PostgresReadRoute) -> Void)? = nil
    /// The freshness floor of every session opened with this connector or a copy of it
    /// (`signingIn(as:)`): the app's sessions, one per account it switches to, share one.
    public var floor = WALFloor()

    public init(
        _ connectionString: String = "", connectTimeoutSeconds: Int = 5,
        statementTimeout: Duration = .seconds(30), applicationName: String = "bookshelf",
        reads: PostgresReads = .primary, standbyWait: Duration = .milliseconds(250)
    ) {
        self.connectionString = connectionString
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.statementTimeout = statementTimeout
        self.applicationName = applicationName
        self.reads = reads
        self.standbyWait = standbyWait
    }

    /// The same settings with another user (an account's login role), keeping host and database.
    public func signingIn(as user: String) -> PostgresConnector {
        var copy = self
        copy.user = user
        return copy
    }

    /// Overrides the user of the connection string (set by `signingIn(as:)`).
    var user: String? = nil

    /// Says PGPASSWORD holds `user`'s password: the account a command or the app starts as
    /// (`--account`) signs in with the password given for that run. Otherwise it is the
    /// string's own user's, and any other account must give its own.
    public func environmentPassword(belongsTo user: String) -> PostgresConnector {
        var copy = self
        copy.environmentPasswordOwner = user
        return copy
    }

    /// Whose password PGPASSWORD is, when not the string's own user's.
    var environmentPasswordOwner: String? = nil

    /// Host, port, database and user, never the password.
    public var description: String {
        let shown = ["host", "hostaddr", "port", "dbname", "user"]
        var parts: [String] = []
        var error: UnsafeMutablePointer<CChar>?
        if bookshelf_libpq_unavailable() != nil {
            // Connecting will say why; the description is shown before that.
        } else if let options = PQconninfoParse(connectionString, &error) {
            defer { PQconninfoFree(options) }
            var option = options
            while let keyword = option.pointee.keyword {
                let name = String(cString: keyword)
                if shown.contains(name), let value = option.pointee.val, name != "user" || user == nil {
                    parts.append("\(name)=\(String(cString: value))")
                }
                option += 1
            }
        } else if let error {
            PQfreemem(error)
            return "postgresql (unparsable connection string)"
        }
        if let user { parts.append("user=\(user)") }
        return parts.isEmpty ? "postgresql (libpq defaults)" : "postgresql " + parts.joined(separator: " ")
    }

    /// Keyword/value pairs for PQconnectdbParams. Later pairs override earlier ones, and the
    /// connection string is expanded in place of `dbname`: so our defaults come first (the
    /// user's string wins over them), our requirements last.
    ///
    /// With several hosts libpq tries them in order; `purpose` says which it must settle on.
    func parameters(password: String?, purpose: PostgresConnectionPurpose = .writes) -> [(String, String)] {
        let environment = ProcessInfo.processInfo.environment
        var pairs: [(String, String)] = []
        if environment["PGCONNECT_TIMEOUT"] == nil {
            pairs.append(("connect_timeout", String(max(1, connectTimeoutSeconds))))
        }
        pairs.append(("fallback_application_name", applicationName))
        // A server that vanishes without closing the socket is noticed within about a minute.
        pairs += [
            ("keepalives", "1"), ("keepalives_idle", "30"), ("keepalives_interval", "10"),
            ("keepalives_count", "3"),
        ]
        if let user, let given = explicitOptions(),
            given["password"] != nil && user != Self.defaultUser(given)
                || environment["PGPASSWORD"] != nil && user != environmentPasswordOwner ?? Self.defaultUser(given)
        {
            // A password in the string is its user's alone, and one in PGPASSWORD its owner's:
            // another account gives its own (typed, or from the password file). libpq skips
            // empty values in these pairs but keeps one written in a connection string, and a
            // password set there, even empty, keeps PGPASSWORD out.
            var options = given.filter { $0.key != "password" }
            options["password"] = ""
            pairs.append(("dbname", Self.keywordString(options)))
        } else {
            pairs.append(("dbname", connectionString))
        }
        if let user { pairs.append(("user", user)) }
        // Titles are Swift strings; the wire must carry UTF-8 whatever the environment says.
        pairs.append(("client_encoding", "UTF8"))
        pairs.append(("target_session_attrs", purpose.targetSessionAttributes))
        if let password, !password.isEmpty { pairs.append(("password", password)) }
        return pairs
    }
}

extension PostgresConnector {
    /// The options the connection string itself gives (libpq's parse, no defaults filled in).
    /// A bare database name (neither a URL nor `key=value`) gives just that.
    func explicitOptions() -> [String: String]? {
        guard bookshelf_libpq_unavailable() == nil else { return nil }
        let isURL = connectionString.hasPrefix("postgresql://") || connectionString.hasPrefix("postgres://")
        if !isURL, !connectionString.contains("=") {
            return connectionString.isEmpty ? [:] : ["dbname": connectionString]
        }
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &error) else {
            if let error { PQfreemem(error) }
            return nil
        }
        defer { PQconninfoFree(options) }
        var found: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { found[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return found
    }

    /// `options` as a libpq keyword string, every value quoted (`key='it\'s'`).
    static func keywordString(_ options: [String: String]) -> String {
        options.sorted { $0.key < $1.key }.map { key, value in
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
            return "\(key)='\(escaped)'"
        }.joined(separator: " ")
    }

    /// The user the string signs in as: its own, else PGUSER, else the system user (libpq's order).
    static func defaultUser(_ options: [String: String]) -> String {
        options["user"] ?? ProcessInfo.processInfo.environment["PGUSER"] ?? NSUserName()
    }
}

/// Where an account's reads are served: `primary` (the default, as with one server) or a
/// standby of a multi-host connection string, never older than what the session has seen.
public enum PostgresReads: String, Sendable, CaseIterable {
    case primary, standby
}

/// What a connection is for, and so which of several hosts libpq settles on.
enum PostgresConnectionPurpose {
    /// Saves, the operation log, LISTEN and every read served by the primary: the host that
    /// accepts writes (NOTIFY is not replicated, so only the primary's listeners hear it).
    case writes
    /// Reads served by a standby: a standby if any host is one, else whichever answers.
    case standbyReads

    var targetSessionAttributes: String {
        switch self {
        case .writes: "read-write"
        case .standbyReads: "prefer-standby"
        }
    }
}

/// Why connecting failed in a way the caller can do something about.
public enum PostgresConnectFailure: Error, Equatable, CustomStringConvertible {
    /// The server wants a password and none was given (nor found in PGPASSWORD / PGPASSFILE).
    /// Ask the user and connect again with it.
    case passwordRequired
    /// The login role exists but has no Bookshelf account (see `PostgresSetup.addAccount`).
    case noAccount(role: String)
    /// The server refused the password it was given (the server's message).
    case passwordRejected(String)

    public var description: String {
        switch self {
        case .passwordRequired: "The PostgreSQL server wants a password."
        case let .noAccount(role):
            "The PostgreSQL role \(role) has no Bookshelf account in this catalog (it was never added here, or was removed)."
        case let .passwordRejected(message): message
        }
    }
}

extension PostgresConnector {
    /// The connection string without its password, as a keyword string of every option it
    /// gives (nil when it cannot be parsed): what may be written down to open the catalog
    /// again (the recent catalogs), the password left to libpq's usual places.
    public var withoutPassword: String? {
        guard var options = explicitOptions() else { return nil }
        options["password"] = nil
        return Self.keywordString(options)
    }
}
