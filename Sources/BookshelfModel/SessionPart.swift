import BookCatalog

/// The session part's stored values: the accounts, the connection, the questions asked before a
/// draft is dropped, and what the user asked to do once a save has gone through. Only the
/// session's files touch them; the other parts use the session's intents and reads.
struct SessionPart {
    /// The current session's remote, for a new session of the same connection (a scope an
    /// administrator changed).
    var remote: (any SearchableBookRemote)?
    /// The current session's remote when it can sign a lost connection in again: asked once,
    /// when the session began.
    var reauthenticating: (any ReauthenticatingRemote)?
    var accountName: String?
    var accountRole: AccountRole?
    /// Which books the current account sees, when the store tells.
    var accountScope: String?
    var accountNames: [String] = []
    var accountRoles: [String: AccountRole] = [:]
    var accountScopes: [String: String] = [:]
    /// The account being connected to, or how the catalog being opened is shown.
    var connectingAccount: String?
    /// `connectingAccount` and `connectionError` are about opening another catalog, not an account.
    var connectingOpensCatalog = false
    /// The catalog open now, when the app says (it offers the others in the switcher).
    var catalog: RecentCatalog?
    /// The user switched to `catalog` in this run: the header names it rather than the one the
    /// app started with.
    var switchedCatalog = false
    /// The catalogs opened recently, newest first, as last read.
    var recentCatalogs: [RecentCatalog] = []
    var connectionError: String?
    /// `connectionError` says only that the store could not be reached: the next answer of
    /// the store makes it old news.
    var connectionErrorIsUnreachable = false
    /// The current session's connection was lost and needs the password typed again.
    var connectionIsLost = false
    /// Requests up to this order (`RequestTicket.order`) began before the last successful
    /// reconnect: their "password needed" failures are old news and ask for nothing.
    var reconnectedThrough = 0
    /// When the freshness check in flight (if any) began.
    var changeCheckStarted: Duration?
    var confirmation: Confirmation?
    var passwordPrompt: PasswordPrompt?
    var shouldQuit = false
    /// What the user confirmed to do once the save in flight has gone through.
    var afterSave: Confirmation.Action?
    /// How many change notices have arrived (`BookshelfState.catalogChanges`).
    var catalogChanges = 0
}

extension BookshelfModel {
    /// The accounts for the switcher.
    var accountChoices: [AccountChoice] {
        sessionPart.accountNames.map {
            AccountChoice(
                name: $0, needsPassword: connector.requiresPassword(for: $0), isCurrent: $0 == sessionPart.accountName,
                role: sessionPart.accountRoles[$0], scope: sessionPart.accountScopes[$0])
        }
    }

    var connectionState: ConnectionState {
        ConnectionState(
            connectingTo: isPending(.connect) ? sessionPart.connectingAccount : nil,
            error: sessionPart.connectionError,
            concernsCatalog: sessionPart.connectingOpensCatalog,
            isLost: sessionPart.connectionIsLost,
            isUnreachable: !reachability.isReachable,
            refusal: reachability.refusal)
    }

    // MARK: What the other parts ask of the session

    /// The account of the current session.
    var accountName: String? { sessionPart.accountName }

    /// What the current account may do, when the store tells.
    var accountRole: AccountRole? { sessionPart.accountRole }

    /// A question of the session's is on screen (a confirmation, a password prompt).
    var sessionIsAsking: Bool { sessionPart.confirmation != nil || sessionPart.passwordPrompt != nil }

    /// Why the draft cannot change now, if it cannot. While another account connects, the
    /// editor belongs to a session that is about to end: typing then would be dropped
    /// without a question, so it is refused and the editor says why.
    var editorReadOnlyReason: String? {
        if isPending(.connect), let account = sessionPart.connectingAccount {
            return "Switching to \(account): the editor is read-only until the switch is done."
        }
        if sessionPart.accountRole == .reader {
            return "\(sessionPart.accountName ?? "This account") is a reader: viewing only."
        }
        if let action = sessionPart.afterSave { return "Waiting for the save to go through before you \(action.verb)." }
        return nil
    }

    /// The store is back: a switch that failed only because the store could not be reached
    /// stops saying so. A refusal (a wrong password) is still true, and stays.
    func forgetUnreachableConnectionError() {
        if sessionPart.connectionError != nil, sessionPart.connectionErrorIsUnreachable, !isPending(.connect) {
            sessionPart.connectionError = nil
            sessionPart.connectionErrorIsUnreachable = false
        }
    }

    // MARK: Questions before a draft is dropped

    /// Asks to quit; with an unsaved draft it asks first. Watch `state.shouldQuit`.
    public func requestQuit() {
        message = nil
        if !askBeforeDroppingTheEditor(.quit) {
            sessionPart.shouldQuit = true
            forgetKeptDraft()
        }
        changed()
    }

    /// Asks first when `action` would drop the editor's work: a dirty draft may be
    /// discarded, but a save in flight cannot, so then the question is whether to do the
    /// action once the save has gone through. Returns whether it asked.
    func askBeforeDroppingTheEditor(_ action: Confirmation.Action) -> Bool {
        if saveIsInFlight {
            sessionPart.confirmation = Confirmation(action: action, waitsForSave: true)
            return true
        }
        if openEditor?.isDirty == true {
            sessionPart.confirmation = Confirmation(action: action)
            return true
        }
        return false
    }

    /// The user confirmed the pending question: the draft may be discarded.
    @discardableResult
    public func confirm() -> Int? {
        guard let pending = sessionPart.confirmation else { return nil }
        sessionPart.confirmation = nil
        defer { changed() }
        if pending.waitsForSave {
            sessionPart.afterSave = pending.action
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
            sessionPart.shouldQuit = true
            forgetKeptDraft()
            return nil
        case let .switchAccount(name):
            // The draft goes only when the new session begins; a failed connect keeps it.
            return proceedToConnect(name, password: nil)
        case let .switchCatalog(catalog):
            // As for an account: the draft goes only when the other catalog's session begins.
            return open(catalog)
        }
    }

    /// The user declined the pending question: nothing is discarded.
    public func cancelConfirmation() {
        sessionPart.confirmation = nil
        changed()
    }

    /// Does what waited for a save once the save has finished, if it went through and the
    /// draft is still what it saved; otherwise keeps the editor and says why. Runs after
    /// every effect (a save's chain ends there). Returns a request number if one started.
    @discardableResult
    func continueAfterSave() -> Int? {
        // A question about a save in progress is untrue once the save has answered: ask
        // the plain question if there is still something to lose, else drop it.
        if let question = sessionPart.confirmation, question.waitsForSave, !saveIsInFlight {
            sessionPart.confirmation = openEditor?.isDirty == true ? Confirmation(action: question.action) : nil
        }
        guard let action = sessionPart.afterSave, !saveIsInFlight else { return nil }
        sessionPart.afterSave = nil
        defer { changed() }
        guard let editor = openEditor else { return perform(action) }
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
            message =
                "Saved as \(revisions.text(revision)); you changed the draft since, so you did not \(action.verb)."
            return nil
        }
        message =
            "Saved book #\(editor.bookID) as \(revisions.text(revision)) (\(sessionPart.accountName ?? "this account"))."
        if case .quit = action { message = "Saved book #\(editor.bookID) as \(revisions.text(revision))." }
        return perform(action)
    }
}
