import BookCatalog

extension BookshelfModel {
    // MARK: Starting and switching accounts

    /// Lists the accounts and connects to the starting account (prompting for a password if
    /// it needs one and none is given). Returns the connect request number, if one started.
    @discardableResult
    public func start(password: String? = nil) -> Int? {
        listAccounts()
        return proceedToConnect(startingAccount, password: password)
    }

    /// Waits until the account list asked for by `start` has arrived. A session that begins
    /// before it answers asks again (see `beginSession`): then this waits for that listing.
    public func accountsListed() async {
        while let listing = owners[.accounts], inFlight[listing] != nil { await finished(request: listing.request) }
    }

    /// Lists the accounts, their roles and scopes. What cannot be listed stays empty: the
    /// switcher then offers fewer choices, and the current account still works.
    private func listAccounts() {
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
                    accountNames = listed.names
                    accountRoles = listed.roles
                    accountScopes = listed.scopes
                    return nil
                }))
    }

    /// Switches to another account. With an unsaved draft it asks first; if the account
    /// needs a password it asks for that (`passwordPrompt`). The current session stays as
    /// it is until the new connection succeeds.
    @discardableResult
    public func requestAccountSwitch(to name: String) -> Int? {
        if name == accountName, connectionIsLost {
            requestReconnect()
            return nil
        }
        guard name != accountName || repository == nil else { return nil }
        defer { changed() }
        message = nil
        if askBeforeDroppingTheEditor(.switchAccount(name)) { return nil }
        return proceedToConnect(name, password: nil)
    }

    /// Connects with the password the user typed for `passwordPrompt`: a new session, or
    /// the current one signed back in after a lost connection. The password is not kept.
    @discardableResult
    public func submitPassword(_ password: String) -> Int? {
        guard let prompt = passwordPrompt else { return nil }
        passwordPrompt = nil
        defer { changed() }
        if prompt.reconnects { return reconnect(password: password) }
        return connect(to: prompt.account, password: password)
    }

    /// Dismisses the password prompt. A lost connection stays lost (the screen says so)
    /// until `requestReconnect`; nothing else changes.
    public func cancelPasswordPrompt() {
        passwordPrompt = nil
        changed()
    }

    /// Asks to quit; with an unsaved draft it asks first. Watch `state.shouldQuit`.
    public func requestQuit() {
        message = nil
        if !askBeforeDroppingTheEditor(.quit) {
            shouldQuit = true
            forgetKeptDraft()
        }
        changed()
    }

    /// Asks first when `action` would drop the editor's work: a dirty draft may be
    /// discarded, but a save in flight cannot, so then the question is whether to do the
    /// action once the save has gone through. Returns whether it asked.
    func askBeforeDroppingTheEditor(_ action: Confirmation.Action) -> Bool {
        if saveIsInFlight {
            confirmation = Confirmation(action: action, waitsForSave: true)
            return true
        }
        if editor?.isDirty == true {
            confirmation = Confirmation(action: action)
            return true
        }
        return false
    }

    /// A save (or the reconciliation of an uncertain one) is on its way: it may commit
    /// whatever the user says now.
    var saveIsInFlight: Bool {
        editor != nil && [.save, .reconcile].contains(pendingKind(.editor))
    }

    /// The user confirmed the pending question: the draft may be discarded.
    @discardableResult
    public func confirm() -> Int? {
        guard let pending = confirmation else { return nil }
        confirmation = nil
        defer { changed() }
        if pending.waitsForSave {
            afterSave = pending.action
            return continueAfterSave()
        }
        return perform(pending.action)
    }

    private func perform(_ action: Confirmation.Action) -> Int? {
        switch action {
        case .closeEditor:
            discardEditor()
            return nil
        case .quit:
            // The user said to discard the draft: it is not kept for the next run either.
            shouldQuit = true
            forgetKeptDraft()
            return nil
        case let .switchAccount(name):
            // The draft goes only when the new session begins; a failed connect keeps it.
            return proceedToConnect(name, password: nil)
        }
    }

    /// The user declined the pending question: nothing is discarded.
    public func cancelConfirmation() {
        confirmation = nil
        changed()
    }

    /// Does what waited for a save once the save has finished, if it went through and the
    /// draft is still what it saved; otherwise keeps the editor and says why. Runs after
    /// every effect (a save's chain ends there). Returns a request number if one started.
    @discardableResult
    func continueAfterSave() -> Int? {
        // A question about a save in progress is untrue once the save has answered: ask
        // the plain question if there is still something to lose, else drop it.
        if let question = confirmation, question.waitsForSave, !saveIsInFlight {
            confirmation = editor?.isDirty == true ? Confirmation(action: question.action) : nil
        }
        guard let action = afterSave, !saveIsInFlight else { return nil }
        afterSave = nil
        defer { changed() }
        guard let editor else { return perform(action) }
        guard case let .saved(revision)? = editor.outcome else {
            // Say what the editor says: an unsettled save may yet have gone through.
            if case .unresolved? = editor.outcome {
                message =
                    "Unknown whether the save went through, so you did not \(action.verb): your draft is still here."
                return nil
            }
            message = "The save did not go through, so you did not \(action.verb): your draft is still here."
            return nil
        }
        guard !editor.isDirty else {
            message = "Saved as revision \(revision); you changed the draft since, so you did not \(action.verb)."
            return nil
        }
        message = "Saved book #\(editor.bookID) as revision \(revision) (\(accountName ?? "this account"))."
        if case .quit = action { message = "Saved book #\(editor.bookID) as revision \(revision)." }
        return perform(action)
    }

    private func proceedToConnect(_ name: String, password: String?) -> Int? {
        if password == nil, connector.requiresPassword(for: name) {
            passwordPrompt = PasswordPrompt(account: name)
            changed()
            return nil
        }
        return connect(to: name, password: password)
    }

    private func connect(to name: String, password: String?) -> Int {
        let connector = self.connector
        connectingAccount = name
        connectionError = nil
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
                        passwordPrompt = PasswordPrompt(
                            account: name, problem: password == nil ? nil : Self.passwordRefused)
                        return nil
                    }
                    connectionError = Self.message(for: error)
                    connectionErrorIsUnreachable = StoreReachability.meansUnreachable(error)
                    return nil
                }))
    }

    /// A connection succeeded: the session number moves first, so nothing started under the
    /// old session can publish from here on; then the repository (its cache and freshness floor), the rows,
    /// errors, busy state and editor are replaced, and the typed query runs again.
    private func beginSession(remote: any SearchableBookRemote, account: String, as known: Account? = nil) {
        // The account list on its way belongs to the session that ends: ask again.
        let listingWasCutOff = isPending(.accounts)
        session += 1
        // Before anything calls `changed()`: a draft the old session kept stays on disk when
        // its editor closes here without the user's word (an administrator moved the scope).
        offerKeptDrafts(to: account)
        owners.removeAll()
        showsBusy.removeAll()
        for task in cancellable.values { task.cancel() }
        cancellable.removeAll()
        repository = BookRepository(remote: remote)
        self.remote = remote
        reauthenticating = remote as? any ReauthenticatingRemote
        connectionIsLost = false
        reachability = StoreReachability()
        accountName = account
        let told = known ?? (remote as? any AccountAwareRemote)?.account
        accountRole = told?.role
        accountScope = told?.scope
        clearPartsForNewSession()
        confirmation = nil
        afterSave = nil
        passwordPrompt = nil
        connectionError = nil
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
        guard ticket.identity.session == session, ticket.order > reconnectedThrough,
            !connectionIsLost, let accountName
        else { return }
        connectionIsLost = true
        if passwordPrompt == nil, confirmation == nil {
            passwordPrompt = PasswordPrompt(account: accountName, reconnects: true)
        }
        changed()
    }

    /// Asks again for the password of a lost connection (after the prompt was dismissed).
    public func requestReconnect() {
        guard connectionIsLost, passwordPrompt == nil, let accountName else { return }
        passwordPrompt = PasswordPrompt(account: accountName, reconnects: true)
        changed()
    }

    /// Signs the current session's connection in again. On success the rows and the edited
    /// record are read again (the draft untouched); a wrong password asks again.
    private func reconnect(password: String) -> Int? {
        guard let remote = reauthenticating, let account = accountName else {
            message = "This catalog cannot sign a lost connection in again: switch account to start a new session."
            return nil
        }
        message = nil
        return launch(
            .reconnect,
            Effect(
                .reconnect, { try await remote.reauthenticate(password: password) },
                publish: { [self] _, _ in
                    connectionIsLost = false
                    reconnectedThrough = lastOrder
                    message = "Reconnected as \(account)."
                    searchAgain()
                    watchEditedRecord()
                    settleUnresolvedSave()
                    return nil
                },
                fail: { [self] error, _ in
                    let problem =
                        (error as? BookFailure) == .notAllowed ? Self.passwordRefused : Self.message(for: error)
                    passwordPrompt = PasswordPrompt(account: account, reconnects: true, problem: problem)
                    return nil
                }))
    }

    // MARK: Freshness

    /// Asks the store whether someone else committed (call it from a UI timer). On a notice
    /// it refreshes the rows (keeping the selection) and re-reads the edited record without
    /// touching the draft. A check the store did not answer marks it unreachable (see
    /// `StoreReachability`), so a server lost while the user is idle shows at once. Skipped
    /// while a check is already in flight. Returns the check's request number.
    @discardableResult
    public func checkForChanges() -> Int? {
        guard let repository else { return nil }
        if let waiting = owners[.changeCheck], inFlight[waiting] != nil {
            // A server that stops answering without refusing (a network cut) leaves the check
            // waiting until its deadline: unanswered this long, it says as much as a failure.
            // Not while a save of ours is in flight: the store answers one call at a time, and
            // a save waiting for a catalog another program has locked holds the check back
            // without the store being out of reach.
            if let started = changeCheckStarted, clock.now() - started >= Self.unansweredCheckLimit,
                reachability.isReachable, pendingKind(.editor) != .save, let check = inFlight[waiting]
            {
                reachability.learn(false, from: check.order)
                changed()
            }
            return nil
        }
        changeCheckStarted = clock.now()
        return launch(
            .changeCheck,
            Effect(
                .changeCheck, { try await repository.checkForChanges() },
                // Quiet checks are not logged: a timer would flood the ring with them.
                logged: { $0 != nil },
                publish: { [self] notice, _ in
                    // The store answers again: a save cut off while it was away can be settled now.
                    settleUnresolvedSave()
                    guard let notice else { return nil }
                    catalogChanges += 1
                    if let now = notice.account, follow(accountChangedTo: now) { return nil }
                    _ = startSearch(.refresh)
                    recountBooks()
                    if let editor, notice.concerns(editor.bookID) { watchEditedRecord() }
                    return nil
                },
                fail: { [self] error, ticket in
                    if case let .storeRefused(reason)? = error as? BookFailure {
                        if reachability.learn(refusal: reason, from: ticket.order) { forgetUnreachableNotes() }
                    } else if StoreReachability.meansUnreachable(error) {
                        reachability.learn(false, from: ticket.order)
                    }
                    return nil
                }))
    }

    // MARK: An administrator changed the account

    /// The store says the current account's role or scope changed while it was signed in.
    /// A new role takes effect at once: the header, the editor's read-only state and the
    /// history's restore follow the role (they are derived from it). A new scope is another
    /// set of books, so it is a new session, as an account switch is: nothing the old scope's
    /// requests bring back (rows, a save's outcome) appears after it, and the typed query runs
    /// again. Returns whether a new session began.
    func follow(accountChangedTo now: Account) -> Bool {
        guard now.name == accountName, let remote else { return false }
        defer { changed() }
        accountRoles[now.name] = now.role
        accountScopes[now.name] = now.scope
        if let scope = accountScope, scope != now.scope {
            var told = "An administrator moved \(now.name) to scope \(now.scope): showing its books."
            if let editor {
                if case .unresolved? = editor.outcome {
                    told += " Whether the save of book #\(editor.bookID) went through is unknown: see its history."
                } else if saveIsInFlight {
                    told += " The save of book #\(editor.bookID) was under the old scope: see its history."
                } else if editor.isDirty {
                    told += " Your unsaved edit of book #\(editor.bookID) was closed."
                }
            }
            beginSession(remote: remote, account: now.name, as: now)
            message = told
            return true
        }
        accountScope = now.scope
        guard now.role != accountRole else { return false }
        accountRole = now.role
        message =
            now.role == .reader
            ? "An administrator made \(now.name) a reader: viewing only."
            : "An administrator made \(now.name) an editor: you may edit."
        return false
    }
}
