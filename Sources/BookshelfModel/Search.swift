import BookCatalog

/// The search part's stored values (its busy flags are derived from the runner's requests, see
/// `searchState`): the line, the rows it answered, the list as the screen shows it, and what
/// waits for an answer. Only the search's files touch them; the other parts use the search's
/// intents and reads.
struct SearchPart {
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
    /// How many books the current session's account sees, once counted (`countBooks`).
    var accountBooks: Int?
    /// The result list as the screen shows it (`SearchPaging.swift`).
    var listView = ResultListView()
    /// `followPaging` is deciding: what it starts changes the model again.
    var isFollowingPaging = false
    /// Enter was pressed while this search was on its way: its first row opens when it answers.
    var openWhenAnswered: PublicationIdentity?

    var selectedID: Int? { selection.map { rows[$0].id } }
    var selectedBook: BookRecord? { selection.map { rows[$0] } }

    /// A new session began: nothing of the old one's rows or count is shown (the typed query
    /// stays, and runs again); the list as the screen shows it stays as it is.
    mutating func clearForNewSession() {
        var fresh = SearchPart(line: line)
        fresh.listView = listView
        fresh.isFollowingPaging = isFollowingPaging
        self = fresh
    }

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
            line: searchPart.line,
            rowsQuery: searchPart.rowsQuery,
            opensWhenAnswered: searchPart.openWhenAnswered != nil && searchPart.openWhenAnswered == owner,
            rows: searchPart.rows,
            total: searchPart.total,
            totalCount: searchPart.totalCount,
            selection: searchPart.selection,
            error: searchPart.error,
            isBusy: owner.map { inFlight[$0] != nil && showsBusy.contains($0) } ?? false,
            isLoadingMore: isPending(.page),
            answeredWhileIndexing: searchPart.answeredWhileIndexing,
            accountBooks: searchPart.accountBooks,
            listTop: searchPart.listView.top)
    }

    /// The user changed the query: starts a search for it (the previous one can no longer
    /// publish). Returns the request number, or nil if nothing started (same text, no session).
    @discardableResult
    public func setQuery(_ text: String) -> Int? {
        var line = searchPart.line
        line.replaceText(text)
        return setQueryLine(line)
    }

    /// The search line after an edit: a cursor moved alone is kept, new text searches.
    func setQueryLine(_ line: LineEditor) -> Int? {
        guard line.text != searchPart.query else {
            guard line != searchPart.line else { return nil }
            searchPart.line = line
            changed()
            return nil
        }
        searchPart.line = line
        searchPart.openWhenAnswered = nil
        message = nil
        defer { changed() }
        return startSearch(.search)
    }

    // MARK: The search line

    /// A readline edit of the search line. Returns the search it started, if the text changed.
    @discardableResult
    public func editQuery(_ edit: LineEditor.Edit) -> Int? {
        var line = searchPart.line
        line.apply(edit)
        return setQueryLine(line)
    }

    /// Inserts pasted text at the search line's cursor, keeping the line within `limit`
    /// characters. Returns the search it started, and whether the text had to be cut.
    public func pasteIntoQuery(_ text: String, limit: Int) -> (request: Int?, cut: Bool) {
        var line = searchPart.line
        let (_, cut) = line.insert(text, limit: limit)
        return (setQueryLine(line), cut)
    }

    /// Moves the selection, clamped to the rows; near the end it loads the next page.
    public func moveSelection(by delta: Int) {
        searchPart.listView.pending = nil
        guard !searchPart.rows.isEmpty else { return }
        select(index: (searchPart.selection ?? 0) + delta)
    }

    /// Selects a row by index (clamped); near the end it loads the next page.
    public func select(index: Int) {
        searchPart.openWhenAnswered = nil
        guard !searchPart.rows.isEmpty else { return }
        searchPart.selection = min(max(0, index), searchPart.rows.count - 1)
        loadMoreNearTheEnd()
        changed()
    }

    /// A selection within `loadMoreThreshold` rows of the end of the loaded rows loads the next page.
    private func loadMoreNearTheEnd() {
        if let selection = searchPart.selection, selection >= searchPart.rows.count - 1 - loadMoreThreshold {
            loadMore()
        }
    }

    /// Opens the selected book in the editor (the editor's `open`).
    ///
    /// While the rows answer an older query than the one typed, the user cannot have meant
    /// one of them: the first row of the current search's answer opens when it arrives.
    @discardableResult
    public func openSelected() -> Int? {
        if rowsAreBehindTheQuery, let current = owners[.search], inFlight[current] != nil {
            searchPart.openWhenAnswered = current
            changed()
            return nil
        }
        guard let book = searchPart.selectedBook else { return nil }
        return open(bookID: book.id)
    }

    /// The rows on screen answer an older query than the one typed.
    private var rowsAreBehindTheQuery: Bool {
        searchPart.rowsQuery != searchPart.query || (searchPart.rowsOwner == nil && isPending(.search))
    }

    // MARK: What the other parts ask of the search

    /// The selected row's book, if any (the history opens on it).
    var selectedBook: BookRecord? { searchPart.selectedBook }

    /// Reads the rows again after the connection came back: a refresh when they answer the
    /// typed query, else the search for it.
    func searchAgain() {
        _ = startSearch(searchPart.rowsQuery == searchPart.query ? .refresh : .search)
    }

    /// Lifts any row showing an older revision of `record` to it (the freshness floor).
    func liftRows(to record: BookRecord) { searchPart.lift(to: record) }

    /// Lowers any row showing a newer revision of `record` to it: the store lost that revision.
    func lowerRows(to record: BookRecord) { searchPart.lower(to: record) }

    /// Loads the next page of the rows on screen, if there is one and the rows answer the
    /// current search. It appends only if no newer search or session started meanwhile.
    @discardableResult
    public func loadMore() -> Int? {
        guard let repository, let current = owners[.search], searchPart.rowsOwner == current,
            inFlight[current] == nil, searchPart.rows.count < searchPart.total, !isPending(.page)
        else { return nil }
        let query = SearchQuery(
            text: searchPart.rowsQuery, limit: pageSize, offset: searchPart.rows.count, after: searchPart.next)
        defer { changed() }
        return launch(
            .page,
            Effect(
                .page, { try await repository.search(query) }, source: { $0.source },
                publish: { [self] page, _ in
                    searchPart.append(page.records.map(floor), total: page.total)
                    searchPart.totalCount = page.totalCount
                    searchPart.next = page.next
                    searchPart.error = nil
                    return nil
                },
                fail: { [self] error, _ in
                    searchPart.error = Self.message(for: error)
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
        let text = searchPart.query
        let isRefresh = kind == .refresh
        // A refresh re-reads every loaded row so the list does not shrink under the user.
        let limit = isRefresh ? max(pageSize, searchPart.rows.count) : pageSize
        let query = SearchQuery(text: text, limit: limit, countLater: true)
        return launch(
            .search, showsBusy: !isRefresh || userIsWaiting,
            Effect(
                kind, { try await repository.search(query) }, source: { $0.source },
                publish: { [self] page, ticket in
                    showRows(page, of: text, answering: ticket, keepSelection: isRefresh)
                    if searchPart.openWhenAnswered == ticket.identity {
                        searchPart.openWhenAnswered = nil
                        openSelected()
                    }
                    guard case .counting = page.totalCount else { return nil }
                    return count(query.countingNow, on: repository)
                },
                fail: { [self] error, ticket in
                    searchPart.error = Self.message(for: error)
                    if searchPart.openWhenAnswered == ticket.identity { searchPart.openWhenAnswered = nil }
                    return nil
                }))
    }

    /// The store showed the page before counting (`TotalCount.counting`): the same search
    /// again, counted, next in the search's chain (so in its task, and a newer key cancels it
    /// like any search). Its handler publishes the count and nothing else: the rows stay the
    /// page's (the counted answer repeats them), and the selection the user may have moved meanwhile.
    private func count(_ query: SearchQuery, on repository: BookRepository) -> Effect {
        Effect(
            .count, { try await repository.search(query) }, source: { $0.source },
            publish: { [self] counted, ticket in
                showCount(counted, answering: ticket)
                // A selection that reached the end of the page while it was counted loads on now.
                loadMoreNearTheEnd()
                return nil
            },
            fail: { [self] error, _ in
                searchPart.error = Self.message(for: error)
                // The rows stay, and what was counted of them is all that will be known.
                if case let .counting(seen) = searchPart.totalCount { searchPart.totalCount = .atLeast(seen) }
                return nil
            })
    }

    /// A search's page: the rows, and the query they answer.
    private func showRows(_ page: SearchPage, of text: String, answering ticket: RequestTicket, keepSelection: Bool) {
        searchPart.replaceRows(page.records.map(floor), total: page.total, keepSelection: keepSelection)
        searchPart.totalCount = page.totalCount
        searchPart.next = page.next
        searchPart.rowsOwner = ticket.identity
        searchPart.rowsQuery = text
        searchPart.answeredWhileIndexing = page.answeredWhileIndexing
        searchPart.error = nil
    }

    /// The count of the rows shown: how many match, and where the rows end in the store's
    /// order for the next page. From here the count's request answers for the rows (it is the
    /// newest of the search's chain), so further pages may extend them.
    private func showCount(_ counted: SearchPage, answering ticket: RequestTicket) {
        searchPart.total = counted.total
        searchPart.totalCount = counted.totalCount
        searchPart.next = counted.next
        searchPart.rowsOwner = ticket.identity
        searchPart.error = nil
    }
}
