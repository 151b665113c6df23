import BookCatalog
import PostgresCatalog

/// Signing in to PostgreSQL from the command line. libpq looks for a password itself (the
/// connection string, PGPASSWORD, ~/.pgpass or PGPASSFILE); only when the server wants one
/// and none of those has it does this ask on the terminal, once, without echo. A password
/// typed here serves that one handshake and is not kept.
enum PostgresSignIn {
    /// A session as `account` (nil: the connection's own user).
    static func remote(_ connector: PostgresConnector, account: String?) async throws(CommandFailure) -> PostgresRemote
    {
        // The password given for this run (PGPASSWORD) is the named account's.
        let signingIn = account.map { connector.signingIn(as: $0).environmentPassword(belongsTo: $0) } ?? connector
        return try await withPassword(signingIn) { password in
            try await PostgresRemote.connect(signingIn, password: password)
        }
    }

    /// A session as the connection's own user, with a password only from where libpq looks
    /// (the string, PGPASSWORD, the password file): for the switcher, while the screen is open.
    static func remoteWithoutAsking(_ connector: PostgresConnector) async throws(CommandFailure) -> PostgresRemote {
        do {
            return try await PostgresRemote.connect(connector, password: nil)
        } catch PostgresConnectFailure.passwordRequired {
            throw CommandFailure(
                "\(TerminalText.sanitized(connector.description)) needs a password: set PGPASSWORD or put it in "
                    + "~/.pgpass (or PGPASSFILE), or start bookshelf with --db for it")
        } catch {
            throw CommandFailure(message(error))
        }
    }

    /// An administrative connection (the database owner; see `bookshelf setup`).
    static func administrator(_ connector: PostgresConnector) async throws(CommandFailure) -> PostgresSetup {
        try await withPassword(connector) { password in
            try await PostgresSetup.connect(connector, password: password)
        }
    }

    private static func withPassword<T>(
        _ connector: PostgresConnector, _ open: (String?) async throws -> T
    ) async throws(CommandFailure) -> T {
        do {
            do {
                return try await open(nil)
            } catch PostgresConnectFailure.passwordRequired {
                let prompt = "Password for \(TerminalText.sanitized(connector.description)): "
                guard let password = TerminalPassword.ask(prompt: prompt) else {
                    throw CommandFailure(
                        "\(TerminalText.sanitized(connector.description)) needs a password: "
                            + "set PGPASSWORD or put it in ~/.pgpass (or PGPASSFILE)")
                }
                return try await open(password)
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(message(error))
        }
    }

    /// One line for standard error. libpq's messages span lines ("connection to server ...
    /// failed: FATAL:  password authentication failed ..."); the line breaks go.
    static func message(_ error: any Error) -> String {
        let text: String =
            switch error {
            case let failure as BookFailure:
                switch failure {
                case let .storeUnavailable(reason), let .storeRefused(reason): "PostgreSQL: " + reason
                default: failure.description
                }
            case PostgresConnectFailure.passwordRequired: "the PostgreSQL server wants a password; none was given"
            case let PostgresConnectFailure.passwordRejected(reason): "PostgreSQL: " + reason
            case let failure as PostgresConnectFailure: failure.description + " (see 'bookshelf setup --help')"
            case let failure as PostgresSetupFailure: failure.description
            default: String(describing: error)
            }
        return oneLine(text)
    }

    static func oneLine(_ text: String) -> String {
        TerminalText.sanitized(PostgresAccountConnector.oneLine(text))
    }
}
