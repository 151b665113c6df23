import BookCatalog

// The session's freshness check (is the store there, did someone else commit) and what an
// administrator's change to the signed-in account does.

extension BookshelfModel {
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
            if let started = sessionPart.changeCheckStarted, clock.now() - started >= Self.unansweredCheckLimit,
                reachability.isReachable, pendingKind(.editor) != .save, let check = inFlight[waiting]
            {
                reachability.learn(false, from: check.order)
                changed()
            }
            return nil
        }
        sessionPart.changeCheckStarted = clock.now()
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
                    sessionPart.catalogChanges += 1
                    if let now = notice.account, follow(accountChangedTo: now) { return nil }
                    _ = startSearch(.refresh)
                    recountBooks()
                    if let editor = openEditor, notice.concerns(editor.bookID) { watchEditedRecord() }
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
        guard now.name == sessionPart.accountName, let remote = sessionPart.remote else { return false }
        defer { changed() }
        sessionPart.accountRoles[now.name] = now.role
        sessionPart.accountScopes[now.name] = now.scope
        if let scope = sessionPart.accountScope, scope != now.scope {
            var told = "An administrator moved \(now.name) to scope \(now.scope): showing its books."
            if let editor = openEditor {
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
        sessionPart.accountScope = now.scope
        guard now.role != sessionPart.accountRole else { return false }
        sessionPart.accountRole = now.role
        message =
            now.role == .reader
            ? "An administrator made \(now.name) a reader: viewing only."
            : "An administrator made \(now.name) an editor: you may edit."
        return false
    }
}
