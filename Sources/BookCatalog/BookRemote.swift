import Foundation

/// A store of books as one account sees it. `save` is a compare-and-set: it commits only if
/// the stored revision still equals `expectedRevision`, and answers with the new record.
public protocol BookRemote: Sendable {
    func load(id: Int) async throws -> BookRecord
    func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord

    /// Saves title and author under an operation id. A remote that stores only titles
    /// keeps the default, which refuses an author change rather than dropping it.
    func save(_ request: SaveRequest) async throws -> BookRecord
}

extension BookRemote {
    public func save(_ request: SaveRequest) async throws -> BookRecord {
        guard request.author == nil, request.details == nil else { throw BookFailure.unsupported }
        return try await save(id: request.id, title: request.title, expectedRevision: request.expectedRevision)
    }
}

/// One intended write: the edited fields, the revision they were based on, and an operation
/// id a store can remember so an uncertain outcome can be resolved exactly.
public struct SaveRequest: Sendable, Equatable {
    public let id: Int
    public let title: String
    /// `nil` leaves the stored author as it is.
    public let author: String?
    /// Every field beyond title and author, all written together; nil keeps the book's as
    /// they are (a save from a tool that knows only titles and authors).
    public let details: BookDetails?
    public let expectedRevision: Int
    public let operation: UUID
    /// Made by `validated()`, whose answer is its own: the repository, a bulk edit and the store
    /// each ask for it, and a bulk edit of many books checked each of them three times over.
    /// No other module can set it, and every field is a constant.
    private let isValidated: Bool

    public init(
        id: Int, title: String, author: String? = nil, details: BookDetails? = nil, expectedRevision: Int,
        operation: UUID = .timeOrdered()
    ) {
        self.init(
            id: id, title: title, author: author, details: details, expectedRevision: expectedRevision,
            operation: operation, isValidated: false)
    }

    private init(
        id: Int, title: String, author: String?, details: BookDetails?, expectedRevision: Int, operation: UUID,
        isValidated: Bool
    ) {
        self.id = id
        self.title = title
        self.author = author
        self.details = details
        self.expectedRevision = expectedRevision
        self.operation = operation
        self.isValidated = isValidated
    }

    /// The request with title and author as a store keeps them (trimmed), or why it cannot be sent.
    public func validated() throws(BookFailure) -> SaveRequest {
        guard !isValidated else { return self }
        return SaveRequest(
            id: id, title: try BookValidation.title(title),
            author: try author.map { raw throws(BookFailure) in try BookValidation.author(raw) },
            details: try details.map { raw throws(BookFailure) in try raw.validated() },
            expectedRevision: expectedRevision, operation: operation, isValidated: true)
    }

    /// Equal fields and operation: whether it was validated is not part of what it asks.
    public static func == (left: SaveRequest, right: SaveRequest) -> Bool {
        left.id == right.id && left.title == right.title && left.author == right.author
            && left.details == right.details && left.expectedRevision == right.expectedRevision
            && left.operation == right.operation
    }

    /// The same operation against another base revision (an explicit overwrite).
    public func rebased(onto revision: Int) -> SaveRequest {
        SaveRequest(
            id: id, title: title, author: author, details: details, expectedRevision: revision,
            operation: .timeOrdered())
    }
}

/// What to search for. `text` is user text, never query syntax: adapters must treat every
/// character of it as literal.
public struct SearchQuery: Sendable, Hashable {
    public let text: String
    public let limit: Int
    public let offset: Int
    /// Where the previous page of the same query ended (`SearchPage.next`). A store that
    /// understands it continues from there instead of skipping `offset` rows (keyset paging);
    /// `offset` must still say how many rows came before, for stores that do not.
    public let after: SearchCursor?
    /// The store may answer with the page before it has counted the matches
    /// (`TotalCount.counting`), when counting would keep the page waiting; the same query
    /// without it then gives the count. The app asks this way for the first page of a typed
    /// query; paging and scripts never do.
    public let countLater: Bool

    public init(text: String, limit: Int = 50, offset: Int = 0, countLater: Bool = false) {
        self.init(text: text, limit: limit, offset: offset, after: nil, countLater: countLater)
    }

    public init(text: String, limit: Int, offset: Int, after: SearchCursor?, countLater: Bool = false) {
        self.text = text
        self.limit = max(0, limit)
        self.offset = max(0, offset)
        self.after = after
        self.countLater = countLater
    }

    /// The same query, the count no longer to be put off.
    public var countingNow: SearchQuery {
        SearchQuery(text: text, limit: limit, offset: offset, after: after)
    }
}

/// A position in a query's result order, meaningful only to the store that made it.
public struct SearchCursor: Sendable, Hashable {
    public let store: String
    public let key: String

    public init(store: String, key: String) {
        self.store = store
        self.key = key
    }
}

/// How many matches a search has. Counting is exact up to `SearchPage.exactCountLimit`;
/// past it a store says "at least this many" or gives an estimate, because counting hundreds
/// of thousands of rows costs more than a keystroke may. Every store answers through the
/// same initialisers, so the UI has one path and a reader paging on never sees a total
/// below the rows it has.
public enum TotalCount: Sendable, Hashable {
    case exact(Int)
    /// The store stopped counting: there are at least this many ("10,000+").
    case atLeast(Int)
    /// The store's estimate ("about 460,000"); a store that can count never gives one.
    case about(Int)
    /// The store answered the page first (`SearchQuery.countLater`) and has found at least
    /// this many matches so far; asking again without `countLater` gives the count.
    case counting(atLeast: Int)

    /// `counted` is the number of matches counted up to `SearchPage.exactCountLimit + 1`;
    /// `hasMore` says whether rows follow the page.
    public init(counted: Int, offset: Int, shown: Int, hasMore: Bool) {
        let limit = SearchPage.exactCountLimit
        if counted <= limit {
            self = .exact(counted)
        } else if !hasMore && shown > 0 {
            self = .exact(offset + shown)
        } else {
            self = .atLeast(max(limit, offset + shown + (hasMore ? 1 : 0)))
        }
    }

    /// An estimate of the matches, kept consistent with the page: the last page knows the
    /// exact number (an empty first page: none), and no estimate is below the rows already reached.
    public init(estimate: Int, offset: Int, shown: Int, hasMore: Bool) {
        if !hasMore && (shown > 0 || offset == 0) {
            self = .exact(offset + shown)
        } else {
            self = .about(max(estimate, offset + shown + (hasMore ? 1 : 0)))
        }
    }

    public var value: Int {
        switch self {
        case let .exact(count), let .atLeast(count), let .about(count), let .counting(count): count
        }
    }

    public var isExact: Bool {
        if case .exact = self { return true }
        return false
    }
}

/// One page of matches, best first, and how many matches there are in all.
public struct SearchPage: Sendable, Equatable {
    public let records: [BookRecord]
    /// `totalCount.value`: exact, or a lower bound when `totalCount` says so.
    public let total: Int
    public let totalCount: TotalCount
    /// Where this page ends, for the next page's `SearchQuery.after`; nil when the store has
    /// no cursor or nothing follows.
    public let next: SearchCursor?
    /// The store answered a word query without its search index because it is building one:
    /// the answer is the same, but slow (it read every book), and so is every search until the
    /// index is ready. The screen says so while the user waits.
    public let answeredWhileIndexing: Bool
    /// What answered (the index, the books while it is built, the database's search function…),
    /// when the store says: the request panel (F4) and `--trace` show it. Nil from a fake that
    /// names none.
    public let source: SearchAnswerSource?

    /// Past this many matches, stores stop counting (`TotalCount.atLeast`).
    public static let exactCountLimit = 10_000

    public init(records: [BookRecord], total: Int) {
        self.init(records: records, totalCount: .exact(total), next: nil)
    }

    public init(
        records: [BookRecord], totalCount: TotalCount, next: SearchCursor? = nil, answeredWhileIndexing: Bool = false,
        source: SearchAnswerSource? = nil
    ) {
        self.records = records
        self.total = totalCount.value
        self.totalCount = totalCount
        self.next = next
        self.answeredWhileIndexing = answeredWhileIndexing
        self.source = source
    }

    /// Pages are equal when they show the same rows and the same total; where a store would
    /// continue (`next`) and how it found them (`source`) are its own business, so stores with
    /// and without cursors or an index compare equal.
    public static func == (lhs: SearchPage, rhs: SearchPage) -> Bool {
        lhs.records == rhs.records && lhs.totalCount == rhs.totalCount
    }

    /// The same page with other (fresher) records in the same places.
    public func replacingRecords(_ records: [BookRecord]) -> SearchPage {
        SearchPage(
            records: records, totalCount: totalCount, next: next, answeredWhileIndexing: answeredWhileIndexing,
            source: source)
    }

    /// The same page, saying what answered it.
    public func answered(by source: SearchAnswerSource) -> SearchPage {
        SearchPage(
            records: records, totalCount: totalCount, next: next, answeredWhileIndexing: answeredWhileIndexing,
            source: source)
    }
}

/// What every store and every fake implements, and so what `BookRepository` holds: loading and
/// saving (`BookRemote`), searching and counting. The optional capabilities (a change feed, an
/// operation log, history, an account it knows, signing in again) are refinements of
/// `BookRemote` that the repository and the model ask for once, when a session begins.
///
/// Matching and ranking follow `SearchTerms`: every query word is a prefix of a word of the
/// title or the author, ignoring case and diacritics; title matches rank before author-only
/// matches; an empty query lists all books in title order.
public protocol SearchableBookRemote: BookRemote {
    func search(_ query: SearchQuery) async throws -> SearchPage
    /// How many books this account sees, counted exactly (a search stops counting past
    /// `SearchPage.exactCountLimit`): the header's count and an export's progress.
    func bookCount() async throws -> Int
}

/// Someone else committed. `bookIDs` names the books when the store knows them
/// (PostgreSQL notifications do); `nil` means "something changed, re-read what you show".
///
/// `account` is set when the store found that an administrator changed this session's own
/// account (its role or its scope) since the previous check: the account as it is now.
///
/// `reconnected` is set when the remote had to connect again since its previous check (the
/// server restarted, or a failover put another server in its place): besides everything shown,
/// a save it acknowledged before may be gone, and the repository reads each such book again.
public struct ChangeNotice: Sendable, Equatable {
    public let bookIDs: Set<Int>?
    public let account: Account?
    public let reconnected: Bool

    public init(bookIDs: Set<Int>?, account: Account? = nil, reconnected: Bool = false) {
        self.bookIDs = bookIDs
        self.account = account
        self.reconnected = reconnected
    }
    public static let unspecified = ChangeNotice(bookIDs: nil)

    public func concerns(_ id: Int) -> Bool { bookIDs?.contains(id) ?? true }
}

/// A remote that can tell whether another writer committed since the last check. A notice is
/// a hint: the reader must re-read, never trust a value carried by the notice.
public protocol ChangeDetectingRemote: BookRemote {
    /// Changes committed by other connections since the previous call, or `nil` if none.
    func checkForChanges() async throws -> ChangeNotice?
}

/// A remote that remembers the operation id of each committed save.
public protocol SaveOutcomeRecordingRemote: BookRemote {
    /// The revision the operation committed, or `nil` if it never committed.
    func committedRevision(of operation: UUID) async throws -> Int?
}

/// A remote that knows its account and the accounts of its catalog.
public protocol AccountAwareRemote: BookRemote {
    var account: Account { get }
}

/// A remote whose lost connection can come back only with the password typed at sign-in,
/// which no layer keeps: its calls fail with `PasswordNeededAgain` until the user types it
/// again and `reauthenticate` signs the same session back in (the session, and with it the
/// app's query and draft, stays as it was).
public protocol ReauthenticatingRemote: BookRemote {
    /// Signs the lost connection in again; `password` serves that one handshake only.
    func reauthenticate(password: String) async throws
}

/// The connection was lost and signing in again needs the account's password.
public struct PasswordNeededAgain: Error, Sendable, Equatable, CustomStringConvertible {
    public let account: String

    public init(account: String) { self.account = account }

    public var description: String { "The connection was lost; type the password of \(account) to reconnect." }
}
