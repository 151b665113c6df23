import BookCatalog
import Locking

/// Opens account sessions on a PostgreSQL catalog for the model: one `PostgresRemote` (one
/// connection, signed in as the account's login role) per session.
///
/// The session opened before the screen (where a password may have been typed on the
/// terminal) is handed to the model's first connect, so that password is never needed again.
/// Which accounts need a password is learned by signing in without one: once in the
/// background when the accounts are listed, and again whenever a connect is refused for
/// want of one, so the model's masked prompt appears when switching to such an account.
public final class PostgresAccountConnector: CatalogConnector {
    private let connector: PostgresConnector
    private let state: Locked<State>

    private struct State {
        /// The session opened before the screen, until the model takes it.
        var opened: PostgresRemote?
        /// The newest session handed out: it lists accounts and counts books.
        var newest: PostgresRemote
        var needsPassword: Set<String> = []
    }

    public init(connector: PostgresConnector, opened: PostgresRemote) {
        // PGPASSWORD, if set, was given for the account the app started as, and for no other.
        self.connector = connector.environmentPassword(belongsTo: opened.account.name)
        state = Locked(State(opened: opened, newest: opened))
    }

    /// The accounts on the server, each tried once without a password so the switcher can
    /// say which need one. An account this database does not know is left out.
    public func accountNames() async throws -> [String] {
        let remote = state.withLock { $0.newest }
        let current = remote.account.name
        var names: [String] = []
        // The current account too: it may have signed in with a password typed at start-up,
        // which is gone now, so switching back to it must ask again.
        for name in try await remote.accountNames() {
            do {
                _ = try await PostgresRemote.connect(connector.signingIn(as: name))
                names.append(name)
            } catch PostgresConnectFailure.passwordRequired {
                state.withLock { _ = $0.needsPassword.insert(name) }
                names.append(name)
            } catch PostgresConnectFailure.noAccount where name != current {
                continue
            } catch {
                names.append(name)  // unreachable or refused now; connecting will say why
            }
        }
        if !names.contains(current) { names.insert(current, at: 0) }
        return names
    }

    /// Each account's role, as this catalog's groups say (the switcher shows it).
    public func accountRoles() async throws -> [String: AccountRole] {
        try await state.withLock { $0.newest }.accountRoles()
    }

    public func requiresPassword(for account: String) -> Bool {
        state.withLock { $0.needsPassword.contains(account) }
    }

    public func connect(account: String, password: String?) async throws -> any SearchableBookRemote {
        let handed: PostgresRemote? = state.withLock { state in
            guard let opened = state.opened, opened.account.name == account else { return nil }
            state.opened = nil
            return opened
        }
        if let handed { return handed }
        let remote: PostgresRemote
        do {
            remote = try await PostgresRemote.connect(connector.signingIn(as: account), password: password)
        } catch PostgresConnectFailure.passwordRequired, PostgresConnectFailure.passwordRejected {
            // As `reauthenticate` says it: the model asks for the password (again, saying the
            // typed one was wrong) rather than showing libpq's long message.
            state.withLock { _ = $0.needsPassword.insert(account) }
            throw BookFailure.notAllowed
        } catch let failure as PostgresConnectFailure {
            throw BookFailure.storeUnavailable(Self.oneLine(failure.description))
        } catch let failure as BookFailure {
            if case let .storeUnavailable(reason) = failure { throw BookFailure.storeUnavailable(Self.oneLine(reason)) }
            if case let .storeRefused(reason) = failure { throw BookFailure.storeRefused(Self.oneLine(reason)) }
            throw failure
        }
        state.withLock { $0.newest = remote }
        return remote
    }

    /// How many books the account's newest session sees (for the header), nil if unknown.
    public func bookCount(account: String) async -> Int? {
        let remote = state.withLock { $0.newest }
        guard remote.account.name == account else { return nil }
        return try? await remote.bookCount()
    }

    /// libpq's messages span lines ("connection to server ... failed: FATAL:  password
    /// authentication failed ..."): one line, runs of spaces and tabs squeezed, for a status
    /// bar or standard error.
    public static func oneLine(_ text: String) -> String {
        let lines = text.split(whereSeparator: \.isNewline).map {
            $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
        }
        return lines.filter { !$0.isEmpty }.joined(separator: "; ")
    }
}
