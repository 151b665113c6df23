import BookCatalog

/// Everything the UI draws, as plain values: the screen is a pure function of this.
public struct BookshelfState: Equatable, Sendable {
    /// The account session number; it moves up each time a connection succeeds (0: none yet).
    public var session: Int
    /// The account of the current session, nil before the first successful connection.
    public var account: String?
    /// What the current account may do, when the store tells.
    public var accountRole: AccountRole?
    public var accounts: [AccountChoice]
    public var connection: ConnectionState
    public var search: SearchState
    /// The open editor, if any. It is modal: search intents are ignored while it is open.
    public var editor: EditorState?
    /// A question the user must answer before something destructive happens.
    public var confirmation: Confirmation?
    /// Set when the UI should ask for a password; answer with `submitPassword` or `cancelPasswordPrompt`.
    public var passwordPrompt: PasswordPrompt?
    /// The user asked to quit and nothing unsaved stands in the way: the UI should exit.
    public var shouldQuit: Bool
    /// What the user asked for that waits for a save in flight to finish (switch, close, quit).
    public var waitingForSave: Confirmation.Action?
    /// A fact worth a line in the status bar until the user's next action: what became of
    /// a save the user waited for, say, even after switching account or before quitting.
    public var message: String?
    /// The history view of a book, when open.
    public var history: HistoryState?
    /// An earlier run kept an unsaved draft of this account: restore it? (`restoreKeptDraft`,
    /// `declineKeptDraft`).
    public var keptDraft: KeptDraftQuestion? = nil
    /// How many change notices the model has had: each says the catalog may have changed
    /// (another program imported books, say), so whatever counted it counts it again.
    public var catalogChanges = 0
    /// The saves the store lost (a failover), for the list the user opens, and the books whose
    /// loss the user has not seen there yet: their rows carry a mark until then.
    public var lostSaves = LostSaveList()
    /// The marked books, the bulk editor and its batch (issue 61).
    public var bulk = BulkState()
    /// The catalogs opened recently, newest first, without the one open now: the switcher lists
    /// them below the accounts (`requestCatalogSwitch`).
    public var otherCatalogs: [RecentCatalog] = []
    /// The catalog the user switched to in this run; nil while it is still the one the app
    /// started with (which the app names itself).
    public var switchedCatalog: RecentCatalog? = nil
    /// How the open catalog's revisions read (a count of saves, or calibre's times).
    public var revisions: RevisionStyle = .counter
}

public struct AccountChoice: Equatable, Sendable, Hashable {
    public let name: String
    public let needsPassword: Bool
    public let isCurrent: Bool
    /// Nil when the catalog does not say.
    public var role: AccountRole? = nil
    /// Which books the account sees; nil when the catalog does not say.
    public var scope: String? = nil
}

public struct ConnectionState: Equatable, Sendable {
    /// The account a connection is being opened for (the current session stays usable meanwhile).
    public var connectingTo: String?
    /// Why the last connection attempt failed; the current session (if any) is unchanged.
    public var error: String?
    /// `connectingTo` and `error` are about opening another catalog (`connectingTo` is then how
    /// it is shown, and `error` starts with it), not about signing in to an account.
    public var concernsCatalog = false
    /// The current session lost its connection and signing in again needs the account's
    /// password. Query, rows and draft stay; `requestReconnect` asks for the password.
    public var isLost = false
    /// The store did not answer the last freshness check, and nothing has reached it since.
    /// Nothing is replaced: the checks go on, and the first request that gets through clears it.
    public var isUnreachable = false
    /// The store answers the freshness checks with a refusal, in the store's words (a server that
    /// is a standby now, read-only sessions, no connection left): it is not unreachable, and
    /// saves cannot be made until an administrator changes something. Cleared by the first check
    /// that answers.
    public var refusal: String? = nil
}

public struct PasswordPrompt: Equatable, Sendable {
    public let account: String
    /// The password signs the current session back in after a lost connection, rather than
    /// opening a new session: nothing on screen is replaced.
    public var reconnects = false
    /// Why the previous attempt failed (a wrong password, say), shown in the prompt.
    public var problem: String?

    public init(account: String, reconnects: Bool = false, problem: String? = nil) {
        self.account = account
        self.reconnects = reconnects
        self.problem = problem
    }
}

public struct Confirmation: Equatable, Sendable {
    public enum Action: Equatable, Sendable {
        case closeEditor
        case switchAccount(String)
        /// Open another catalog or library (the switcher's recent ones).
        case switchCatalog(RecentCatalog)
        case quit

        /// "switch to bob", as in "Discard your unsaved changes and switch to bob?"
        public var verb: String {
            switch self {
            case .closeEditor: "close the editor"
            case let .switchAccount(name): "switch to \(name)"
            case let .switchCatalog(catalog): "open \(catalog.shown)"
            case .quit: "quit"
            }
        }
    }

    public let action: Action
    /// A save is in flight: it cannot be discarded, so the question is whether to do the
    /// action once the save has finished (and only if it went through).
    public var waitsForSave = false

    public init(action: Action, waitsForSave: Bool = false) {
        self.action = action
        self.waitsForSave = waitsForSave
    }

    /// What to ask; the confirm choice discards the draft (or, while a save is in flight,
    /// waits for it), cancel keeps editing.
    public var question: String {
        if waitsForSave {
            return
                "A save is in progress and cannot be undone. \(action.verb.capitalizedFirst) when it has gone through?"
        }
        return "Discard your unsaved changes and \(action.verb)?"
    }
}

public struct SearchState: Equatable, Sendable {
    /// The search line: the text the user typed, and the cursor in it.
    public var line: LineEditor
    /// The text the user typed.
    public var query: String {
        get { line.text }
        set { line.replaceText(newValue) }
    }
    /// The query the rows answer: while a newer search is on its way it is an older one,
    /// and the rows should look it.
    public var rowsQuery: String
    /// Enter was pressed while the rows answered an older query: the first row of the
    /// current answer opens when it arrives.
    public var opensWhenAnswered: Bool
    /// The rows of the newest search that answered, never older than a revision this session saw.
    public var rows: [BookRecord]
    /// How many matches the store reported for those rows' query.
    public var total: Int
    /// The kind of number `total` is: exact, a lower bound ("10,000+") or an estimate
    /// ("about 460,000"), when the store stopped counting.
    public var totalCount: TotalCount = .exact(0)
    /// Index into `rows`, nil when there are none.
    public var selection: Int?
    /// The failure of the current request, shown while the previous rows stay.
    public var error: String?
    /// The current search request is in flight.
    public var isBusy: Bool
    /// A further page of these rows is in flight.
    public var isLoadingMore: Bool
    /// The store answered the rows' search without its search index, which it is building:
    /// searches are slow until it is ready, which the screen says while the next one runs.
    public var answeredWhileIndexing = false
    /// How many books the account sees, counted exactly in this session (nil until counted,
    /// and always for a model that does not count): the header says it, and the rule of the
    /// list of every book says it rather than a search's estimate.
    public var accountBooks: Int? = nil
    /// The first row the list shows (the model keeps it on the selection, see `ListViewport`).
    public var listTop = 0

    public var selectedBook: BookRecord? { selection.map { rows[$0] } }
    public var hasMore: Bool { rows.count < total }
    /// The rows answer the typed query (not an older one).
    public var rowsAreCurrent: Bool { rowsQuery == query }
}

/// The editor's fields, in the order the form shows them: every field of a book.
public typealias EditorField = BookField

/// The text the user is editing, as typed (validation trims it when saving): one text a field,
/// tags as "a, b, c" and notes with their line breaks.
public struct BookDraft: Equatable, Sendable, Hashable {
    public var title: String
    public var author: String
    public var isbn: String
    public var year: String
    public var publisher: String
    public var series: String
    public var seriesIndex: String
    public var tags: String
    public var notes: String

    public init(
        title: String, author: String, isbn: String = "", year: String = "", publisher: String = "",
        series: String = "", seriesIndex: String = "", tags: String = "", notes: String = ""
    ) {
        self.title = title
        self.author = author
        self.isbn = isbn
        self.year = year
        self.publisher = publisher
        self.series = series
        self.seriesIndex = seriesIndex
        self.tags = tags
        self.notes = notes
    }

    /// The fields as text, from a record's own values.
    public init(title: String, author: String, details: BookDetails) {
        self.init(
            title: title, author: author, isbn: details.isbn ?? "", year: details.year.map(String.init) ?? "",
            publisher: details.publisher, series: details.series,
            seriesIndex: details.seriesIndex?.description ?? "", tags: details.tagsText, notes: details.notes)
    }

    public init(_ record: BookRecord) { self.init(title: record.title, author: record.author, details: record.details) }

    public subscript(field: EditorField) -> String {
        get {
            switch field {
            case .title: title
            case .author: author
            case .isbn: isbn
            case .year: year
            case .publisher: publisher
            case .series: series
            case .seriesIndex: seriesIndex
            case .tags: tags
            case .notes: notes
            }
        }
        set {
            switch field {
            case .title: title = newValue
            case .author: author = newValue
            case .isbn: isbn = newValue
            case .year: year = newValue
            case .publisher: publisher = newValue
            case .series: series = newValue
            case .seriesIndex: seriesIndex = newValue
            case .tags: tags = newValue
            case .notes: notes = newValue
            }
        }
    }
}

/// What the editor is waiting for, derived from the editor's request in flight.
public enum EditorActivity: Equatable, Sendable {
    case loading
    case saving
    /// A save conflicted; fetching the record as it stands now.
    case fetchingCurrent
    /// A save's outcome was unknown; finding out whether it committed.
    case reconciling
}

/// The last answer to a save, shown in the editor until the next save.
public enum SaveOutcome: Equatable, Sendable {
    case saved(revision: Int)
    /// The store refused or failed (not allowed, invalid, unavailable, missing...). Draft kept.
    case rejected(BookFailure)
    /// The outcome was unknown and reconciliation found it did not commit. Saving again retries.
    case notCommitted
    /// The outcome was unknown and reconciliation itself failed. Saving again checks once more
    /// before sending anything.
    case unresolved(BookFailure?)
    /// The draft equals the revision it edits: nothing was sent, no revision was made.
    case noChanges
    /// The save that made `revision` was acknowledged and then lost (a failover); the store is
    /// back at `current`, the base now. The draft holds the lost text: saving sends it again.
    case lost(revision: Int, current: Int)
}

public enum ConflictChoice: Sendable, Hashable {
    /// Take their version, dropping my draft.
    case reload
    /// Save my draft against their revision.
    case overwrite
    /// Close the conflict and keep my draft (the next save will conflict again).
    case keepEditing
    /// Edit a merged draft against their revision: their changes where only they changed a
    /// field, mine where both did (to finish by hand), then save as usual.
    case editMerged
}

/// Someone else saved the book since the draft's base revision.
public struct ConflictState: Equatable, Sendable {
    /// Their version, once fetched.
    public var theirs: BookRecord?
    /// Why fetching their version failed, if it did.
    public var fetchError: String?
    /// The fields both sides changed differently (empty when only the whole record is known).
    public var fields: [FieldConflict] = []
    /// Theirs merged with mine, mine where both changed a field: what overwriting saves, and
    /// what editing a merge starts from.
    public var merged: BookDraft?

    public var choices: [ConflictChoice] {
        guard theirs != nil else { return [.keepEditing] }
        return merged == nil ? [.reload, .overwrite, .keepEditing] : [.reload, .overwrite, .editMerged, .keepEditing]
    }
}

public struct EditorState: Equatable, Sendable {
    public let bookID: Int
    /// The revision the draft edits; nil until the record has loaded.
    public var base: BookRecord?
    /// The draft's fields with their cursors.
    public var lines: DraftLines
    public var draft: BookDraft {
        get { lines.draft }
        set { lines.draft = newValue }
    }
    public var focus: EditorField
    public var activity: EditorActivity?
    public var outcome: SaveOutcome?
    public var conflict: ConflictState?
    /// A newer revision someone else saved since the base: "changed by someone else since you opened it".
    public var changedElsewhere: BookRecord?
    /// Why the record could not be opened.
    public var loadError: String?
    /// Why a background re-read of the record failed (the draft is untouched).
    public var watchError: String?
    /// What is wrong with each field that breaks its rule, shown beside it.
    public var problems: [EditorField: String]
    public var titleProblem: String? { problems[.title] }
    public var authorProblem: String? { problems[.author] }
    /// Why the draft cannot be changed now (typing is ignored), if it cannot.
    public var readOnlyReason: String?
    /// The account editing, for messages that name it.
    public var account: String?

    /// The draft differs from its base: closing, switching or quitting asks first.
    public var isDirty: Bool { base.map { BookDraft($0) != draft } ?? false }
    public var isLoaded: Bool { base != nil }
    public var canSave: Bool {
        base != nil && activity == nil && problems.isEmpty && conflict == nil
            && readOnlyReason == nil
    }
}

extension String {
    /// The string with its first character uppercased ("switch to bob" -> "Switch to bob").
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
