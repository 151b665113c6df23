import BookCatalog

extension BookshelfModel {
    // MARK: Switching to another catalog (issue 62, ask 7)

    /// The catalogs the switcher offers below the accounts: those opened recently, newest
    /// first, without the one open now.
    var otherCatalogs: [RecentCatalog] {
        sessionPart.recentCatalogs.filter { recent in
            sessionPart.catalog.map { !recent.isSameCatalog(as: $0) } ?? true
        }
    }

    /// Reads the list of catalogs opened recently again (it changes when one is opened, here or
    /// in another run).
    func rememberRecentCatalogs() {
        sessionPart.recentCatalogs = catalogs?.recentCatalogs() ?? []
    }

    /// Opens another catalog as a new session, as an account switch does: with an unsaved draft
    /// it asks first, and the current session stays as it is until the catalog is open. Nothing
    /// the old catalog's session has in flight (answers, errors, busy state, saves' outcomes, a
    /// batch) can appear in the new one: the session number moves first when it begins.
    @discardableResult
    public func requestCatalogSwitch(to catalog: RecentCatalog) -> Int? {
        guard catalogs != nil else { return nil }
        if let current = sessionPart.catalog, current.isSameCatalog(as: catalog), repository != nil { return nil }
        defer { changed() }
        message = nil
        if askBeforeDroppingTheEditor(.switchCatalog(catalog)) { return nil }
        return open(catalog)
    }

    func open(_ catalog: RecentCatalog) -> Int? {
        guard let catalogs else { return nil }
        sessionPart.connectingAccount = catalog.shown
        sessionPart.connectingOpensCatalog = true
        sessionPart.connectionError = nil
        defer { changed() }
        return launch(
            .connect,
            Effect(
                .openCatalog, { try await catalogs.open(catalog) },
                publish: { [self] opened, _ in
                    // Any draft of the session that ends was discarded when the user said so,
                    // and it was kept where the old catalog keeps its drafts.
                    forgetKeptDraft()
                    adopt(opened)
                    return nil
                },
                fail: { [self] error, _ in
                    sessionPart.connectionError = "\(catalog.shown): \(Self.message(for: error))"
                    sessionPart.connectionErrorIsUnreachable = false
                    return nil
                }))
    }

    /// The opened catalog becomes the model's: its connector, its drafts, its accounts; then a
    /// session begins on it exactly as after an account switch.
    private func adopt(_ opened: OpenedCatalog) {
        connector = opened.connector
        keeper = catalogs?.keeper(for: opened.catalog)
        sessionPart.catalog = opened.catalog
        sessionPart.switchedCatalog = true
        // The old catalog's accounts mean nothing here: listed again below.
        sessionPart.accountNames = []
        sessionPart.accountRoles = [:]
        sessionPart.accountScopes = [:]
        beginSession(remote: opened.remote, account: opened.account)
        // A listing of the old catalog cut off by the new session is asked again there.
        if !isPending(.accounts) { listAccounts() }
        rememberRecentCatalogs()
        if let notice = opened.notice { message = notice }
    }
}
