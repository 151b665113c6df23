import BookCatalog

/// The search screen's stored values (busy flags are derived, see `searchState`).
struct SearchResults {
    /// The search line, text and cursor (the one copy: the UI draws it and edits it through
    /// intents). Other text put in it moves the cursor to the end.
    var line = LineEditor()
    var query: String {
        get { line.text }
        set { line.replaceText(newValue) }
    }
    var rows: [BookRecord] = []
    var total = 0
    /// Whether `total` is exact, a lower bound or an estimate (the store stopped counting).
    var totalCount = TotalCount.exact(0)
    /// Where the rows end in the store's order, for keyset paging of the next page.
    var next: SearchCursor?
    var selection: Int?
    /// The search request whose answer the rows are; further pages may extend only it.
    var rowsOwner: PublicationIdentity?
    /// The query text the rows answer (the typed text may have moved on).
    var rowsQuery = ""
    /// The store answered the rows' search while building its index (`SearchPage`).
    var answeredWhileIndexing = false
    var error: String?

    var selectedID: Int? { selection.map { rows[$0].id } }

    /// Shows `record` in place of any older revision of it among the rows. A retitled book
    /// keeps its row until the refresh its change notice starts puts it in the store's order
    /// (docs/guarantees.md, "The model").
    mutating func lift(to record: BookRecord) {
        for index in rows.indices where rows[index].id == record.id && rows[index].revision < record.revision {
            rows[index] = record
        }
    }

    /// Shows `record` in place of any newer revision of it among the rows: the store lost that
    /// revision (`LostSave`), so no row may keep showing it.
    mutating func lower(to record: BookRecord) {
        for index in rows.indices where rows[index].id == record.id && rows[index].revision > record.revision {
            rows[index] = record
        }
    }

    /// New rows: selection stays on the same book if it is still there, else at the same
    /// index (clamped) when `keepSelection`, else on the first row.
    mutating func replaceRows(_ newRows: [BookRecord], total: Int, keepSelection: Bool) {
        let previousID = selectedID
        let previousIndex = selection ?? 0
        rows = newRows
        self.total = total
        if newRows.isEmpty {
            selection = nil
        } else if keepSelection, let previousID, let index = newRows.firstIndex(where: { $0.id == previousID }) {
            selection = index
        } else {
            selection = keepSelection ? min(previousIndex, newRows.count - 1) : 0
        }
    }

    mutating func append(_ page: [BookRecord], total: Int) {
        let present = Set(rows.map(\.id))
        rows.append(contentsOf: page.filter { !present.contains($0.id) })
        self.total = max(total, rows.count)
        if selection == nil, !rows.isEmpty { selection = 0 }
    }
}

extension BookshelfModel {
    var searchState: SearchState {
        let owner = owners[.search]
        return SearchState(
            line: results.line,
            rowsQuery: results.rowsQuery,
            opensWhenAnswered: openWhenAnswered != nil && openWhenAnswered == owner,
            rows: results.rows,
            total: results.total,
            totalCount: results.totalCount,
            selection: results.selection,
            error: results.error,
            isBusy: owner.map { inFlight[$0] != nil && showsBusy.contains($0) } ?? false,
            isLoadingMore: isPending(.page),
            answeredWhileIndexing: results.answeredWhileIndexing,
            accountBooks: accountBooks,
            listTop: listView.top)
    }

    /// The user changed the query: starts a search for it (the previous one can no longer
    /// publish). Returns the request number, or nil if nothing started (same text, no session).
    @discardableResult
    public func setQuery(_ text: String) -> Int? {
        var line = results.line
        line.replaceText(text)
        return setQueryLine(line)
    }

    /// The search line after an edit: a cursor moved alone is kept, new text searches.
    func setQueryLine(_ line: LineEditor) -> Int? {
        guard line.text != results.query else {
            guard line != results.line else { return nil }
            results.line = line
            changed()
            return nil
        }
        results.line = line
        openWhenAnswered = nil
        message = nil
        defer { changed() }
        return startSearch(.search)
    }

    /// Moves the selection, clamped to the rows; near the end it loads the next page.
    public func moveSelection(by delta: Int) {
        listView.pending = nil
        guard !results.rows.isEmpty else { return }
        select(index: (results.selection ?? 0) + delta)
    }

    /// Selects a row by index (clamped); near the end it loads the next page.
    public func select(index: Int) {
        openWhenAnswered = nil
        guard !results.rows.isEmpty else { return }
        results.selection = min(max(0, index), results.rows.count - 1)
        if let selection = results.selection, selection >= results.rows.count - 1 - loadMoreThreshold {
            loadMore()
        }
        changed()
    }

    /// Loads the next page of the rows on screen, if there is one and the rows answer the
    /// current search. It appends only if no newer search or session started meanwhile.
    @discardableResult
    public func loadMore() -> Int? {
        guard let repository, let current = owners[.search], results.rowsOwner == current,
            inFlight[current] == nil, results.rows.count < results.total, !isPending(.page)
        else { return nil }
        let query = SearchQuery(
            text: results.rowsQuery, limit: pageSize, offset: results.rows.count, after: results.next)
        defer { changed() }
        return launch(
            .page,
            Effect(
                .page, { try await repository.search(query) },
                publish: { [self] page, _ in
                    results.append(page.records.map(floor), total: page.total)
                    results.totalCount = page.totalCount
                    results.next = page.next
                    results.error = nil
                    return nil
                },
                fail: { [self] error, _ in
                    results.error = Self.message(for: error)
                    return nil
                }))
    }

    /// Starts a search (or a refresh) of the typed query; it takes over the search slot and
    /// makes any page load of the old rows stale.
    func startSearch(_ kind: RequestKind) -> Int? {
        guard let repository else { return nil }
        let userIsWaiting = owners[.search].map { inFlight[$0] != nil && showsBusy.contains($0) } ?? false
        owners[.page] = nil
        cancellable[.page]?.cancel()
        let text = results.query
        let isRefresh = kind == .refresh
        // A refresh re-reads every loaded row so the list does not shrink under the user.
        let limit = isRefresh ? max(pageSize, results.rows.count) : pageSize
        let query = SearchQuery(text: text, limit: limit, countLater: true)
        return launch(
            .search, showsBusy: !isRefresh || userIsWaiting,
            Effect(
                kind, { try await repository.search(query) },
                publish: { [self] page, ticket in
                    showRows(page, of: text, answering: ticket, keepSelection: isRefresh)
                    if openWhenAnswered == ticket.identity {
                        openWhenAnswered = nil
                        openSelected()
                    }
                    guard case .counting = page.totalCount else { return nil }
                    return count(query.countingNow, on: repository)
                },
                fail: { [self] error, ticket in
                    results.error = Self.message(for: error)
                    if openWhenAnswered == ticket.identity { openWhenAnswered = nil }
                    return nil
                }))
    }

    /// The store showed the page before counting (`TotalCount.counting`): the same search
    /// again, counted, next in the search's chain (so in its task, and a newer key cancels it
    /// like any search). Its rows replace the same rows, keeping the selection the user may
    /// have moved meanwhile.
    private func count(_ query: SearchQuery, on repository: BookRepository) -> Effect {
        Effect(
            .count, { try await repository.search(query) },
            publish: { [self] page, ticket in
                showRows(page, of: query.text, answering: ticket, keepSelection: true)
                // A selection that reached the end of the page while it was counted loads on now.
                if let selection = results.selection, selection >= results.rows.count - 1 - loadMoreThreshold {
                    loadMore()
                }
                return nil
            },
            fail: { [self] error, _ in
                results.error = Self.message(for: error)
                // The rows stay, and what was counted of them is all that will be known.
                if case let .counting(seen) = results.totalCount { results.totalCount = .atLeast(seen) }
                return nil
            })
    }

    private func showRows(_ page: SearchPage, of text: String, answering ticket: RequestTicket, keepSelection: Bool) {
        results.replaceRows(page.records.map(floor), total: page.total, keepSelection: keepSelection)
        results.totalCount = page.totalCount
        results.next = page.next
        results.rowsOwner = ticket.identity
        results.rowsQuery = text
        results.answeredWhileIndexing = page.answeredWhileIndexing
        results.error = nil
    }
}
