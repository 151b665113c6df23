import BookCatalog

extension BookshelfModel {
    // MARK: Starting and switching accounts

    /// Lists the accounts and connects to the starting account (prompting for a password if
    /// it needs one and none is given). Returns the connect request number, if one started.
    @discardableResult
    public func start(password: String? = nil) -> Int? {
        listAccounts()
        rememberRecentCatalogs()
        return proceedToConnect(startingAccount, password: password)
    }

    /// Waits until the account list asked for by `start` has arrived. A session that begins
    /// before it answers asks again (see `beginSession`): then this waits for that listing.
    public func accountsListed() async {
        while let listing = owners[.accounts], inFlight[listing] != nil { await finished(request: listing.request) }
    }

    /// Lists the accounts, their roles and scopes. What cannot be listed stays empty: the
    /// switcher then offers fewer choices, and the current account still works.
    func listAccounts() {
        let connector = self.connector
        launch(
            .accounts,
            Effect(
                .accounts,
                {
                    let names = (try? await connector.accountNames()) ?? []
                    let roles = (try? await connector.accountRoles()) ?? [:]
                    let scopes = (try? await connector.accountScopes()) ?? [:]
                    return (names: names, roles: roles, scopes: scopes)
                },
                // Not logged: the request log is for what keys and change notices start.
                logged: { _ in false },
                publish: { [self] listed, _ in
                    sessionPart.accountNames = listed.names
                    sessionPart.accountRoles = listed.roles
                    sessionPart.accountScopes = listed.scopes
                    return nil
                }))
    }

    /// Switches to another account. With an unsaved draft it asks first; if the account
    /// needs a password it asks for that (`passwordPrompt`). The current session stays as
    /// it is until the new connection succeeds.
    @discardableResult
    public func requestAccountSwitch(to name: String) -> Int? {
        if name == sessionPart.accountName, sessionPart.connectionIsLost {
            requestReconnect()
            return nil
        }
        guard name != sessionPart.accountName || repository == nil else { return nil }
        defer { changed() }
        message = nil
        if askBeforeDroppingTheEditor(.switchAccount(name)) { return nil }
        return proceedToConnect(name, password: nil)
    }

    /// Connects with the password the user typed for `passwordPrompt`: a new session, or
    /// the current one signed back in after a lost connection. The password is not kept.
    @discardableResult
    public func submitPassword(_ password: String) -> Int? {
        guard let prompt = sessionPart.passwordPrompt else { return nil }
        sessionPart.passwordPrompt = nil
        defer { changed() }
        if prompt.reconnects { return reconnect(password: password) }
        return connect(to: prompt.account, password: password)
    }

    /// Dismisses the password prompt. A lost connection stays lost (the screen says so)
    /// until `requestReconnect`; nothing else changes.
    public func cancelPasswordPrompt() {
        sessionPart.passwordPrompt = nil
        changed()
    }

    func proceedToConnect(_ name: String, password: String?) -> Int? {
        if password == nil, connector.requiresPassword(for: name) {
            sessionPart.passwordPrompt = PasswordPrompt(account: name)
            changed()
            return nil
        }
        return connect(to: name, password: password)
    }

    private func connect(to name: String, password: String?) -> Int {
        let connector = self.connector
        sessionPart.connectingAccount = name
        sessionPart.connectingOpensCatalog = false
        sessionPart.connectionError = nil
        defer { changed() }
        return launch(
            .connect,
            Effect(
                .connect, { try await connector.connect(account: name, password: password) },
                publish: { [self] remote, _ in
                    // Any draft of the session that ends was discarded when the user said so.
                    forgetKeptDraft()
                    beginSession(remote: remote, account: name)
                    return nil
                },
                fail: { [self] error, _ in
                    // Refused for its password: ask (again), saying why when one was typed, as
                    // the reconnect prompt does. The current session stays as it is.
                    if (error as? BookFailure) == .notAllowed, connector.requiresPassword(for: name) {
                        sessionPart.passwordPrompt = PasswordPrompt(
                            account: name, problem: password == nil ? nil : Self.passwordRefused)
                        return nil
                    }
                    sessionPart.connectionError = Self.message(for: error)
                    sessionPart.connectionErrorIsUnreachable = StoreReachability.meansUnreachable(error)
                    return nil
                }))
    }

    /// A connection succeeded: the session number moves first, so nothing started under the
    /// old session can publish from here on (`beginGeneration`); then the repository (its cache
    /// and freshness floor), the rows, errors, busy state and editor are replaced, and the typed
    /// query runs again.
    func beginSession(remote: any SearchableBookRemote, account: String, as known: Account? = nil) {
        // The account list on its way belongs to the session that ends: ask again.
        let listingWasCutOff = isPending(.accounts)
        beginGeneration(on: remote)
        // Before anything calls `changed()`: a draft the old session kept stays on disk when
        // its editor closes here without the user's word (an administrator moved the scope).
        offerKeptDrafts(to: account)
        sessionPart.remote = remote
        sessionPart.reauthenticating = remote as? any ReauthenticatingRemote
        sessionPart.connectionIsLost = false
        sessionPart.accountName = account
        let told = known ?? (remote as? any AccountAwareRemote)?.account
        sessionPart.accountRole = told?.role
        sessionPart.accountScope = told?.scope
        clearPartsForNewSession()
        sessionPart.confirmation = nil
        sessionPart.afterSave = nil
        sessionPart.passwordPrompt = nil
        sessionPart.connectionError = nil
        if listingWasCutOff { listAccounts() }
        _ = startSearch(.search)
        recountBooks()
    }

    // MARK: A lost connection

    static let passwordRefused = "That password was not accepted."

    /// How long a freshness check may go unanswered before the store counts as unreachable.
    static let unansweredCheckLimit: Duration = .seconds(3)

    /// A request of the current session found its connection lost, and only the account's
    /// password can sign it in again: ask for it once, in place. The query, the rows and the
    /// draft stay as they are. A request that began before the last successful reconnect
    /// tells nothing new, whenever its answer arrives.
    func connectionNeedsPassword(noticedBy ticket: RequestTicket) {
        guard ticket.identity.session == session, ticket.order > sessionPart.reconnectedThrough,
            !sessionPart.connectionIsLost, let accountName = sessionPart.accountName
        else { return }
        sessionPart.connectionIsLost = true
        if sessionPart.passwordPrompt == nil, sessionPart.confirmation == nil {
            sessionPart.passwordPrompt = PasswordPrompt(account: accountName, reconnects: true)
        }
        changed()
    }

    /// Asks again for the password of a lost connection (after the prompt was dismissed).
    public func requestReconnect() {
        guard sessionPart.connectionIsLost, sessionPart.passwordPrompt == nil, let accountName = sessionPart.accountName
        else { return }
        sessionPart.passwordPrompt = PasswordPrompt(account: accountName, reconnects: true)
        changed()
    }

    /// Signs the current session's connection in again. On success the rows and the edited
    /// record are read again (the draft untouched); a wrong password asks again.
    private func reconnect(password: String) -> Int? {
        guard let remote = sessionPart.reauthenticating, let account = sessionPart.accountName else {
            message = "This catalog cannot sign a lost connection in again: switch account to start a new session."
            return nil
        }
        message = nil
        return launch(
            .reconnect,
            Effect(
                .reconnect, { try await remote.reauthenticate(password: password) },
                publish: { [self] _, _ in
                    sessionPart.connectionIsLost = false
                    sessionPart.reconnectedThrough = lastOrder
                    message = "Reconnected as \(account)."
                    searchAgain()
                    watchEditedRecord()
                    settleUnresolvedSave()
                    return nil
                },
                fail: { [self] error, _ in
                    let problem =
                        (error as? BookFailure) == .notAllowed ? Self.passwordRefused : Self.message(for: error)
                    sessionPart.passwordPrompt = PasswordPrompt(account: account, reconnects: true, problem: problem)
                    return nil
                }))
    }
}
