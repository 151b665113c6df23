/// One book as the catalog knows it at one revision.
///
/// `revision` is the optimistic-concurrency token: every committed save moves it up by one,
/// and a save names the revision it edited so the store can refuse a stale base.
public struct BookRecord: Sendable, Equatable, Hashable {
    public let id: Int
    public let title: String
    public let revision: Int
    public let author: String
    /// ISBN, year, publisher, series, tags and notes; empty for a book that has none.
    public let details: BookDetails

    public init(id: Int, title: String, revision: Int, author: String = "", details: BookDetails = .empty) {
        self.id = id
        self.title = title
        self.revision = revision
        self.author = author
        self.details = details
    }

    /// The same book with other details, at the same revision.
    public func with(details: BookDetails) -> BookRecord {
        BookRecord(id: id, title: title, revision: revision, author: author, details: details)
    }
}

/// Everything that can go wrong between the app and a store, in words a user can act on.
public enum BookFailure: Error, Equatable, Sendable {
    case missing
    case invalidTitle
    case conflict(expected: Int, actual: Int)
    case invalidResponse
    case revisionExhausted
    /// The author field is too long or holds control characters.
    case invalidAuthor
    /// The account may not do this (a reader saving, say). Enforced by the store.
    case notAllowed
    /// The store cannot be reached or refused to work; nothing was changed.
    case storeUnavailable(String)
    /// The store answers, but will not serve this session as it must: a PostgreSQL server
    /// that is a standby now (read-only while it recovers), whose sessions are read-only, or
    /// that has no connection left. Nothing was changed. Not an unreachable store: asking again
    /// gets the same answer until an administrator changes something.
    case storeRefused(String)
    /// A write was sent but its fate is unknown (the connection died before the answer).
    /// It may or may not have committed; reconcile before retrying.
    case outcomeUnknown
    /// The remote does not offer this capability (searching a load/save-only remote).
    case unsupported
    /// A field other than the title or author breaks its rule; `reason` says how, in words
    /// a user can act on.
    case invalidField(BookField, reason: String)
    /// Undo cannot put the book back: its history has no record of it as it was before the
    /// batch (another program changed it outside Bookshelf).
    case unrecordedBeforeBatch
}

extension BookFailure: CustomStringConvertible {
    public var description: String {
        switch self {
        case .missing: "That book no longer exists, or this account cannot see it."
        case .invalidTitle:
            "A title needs 1 to \(BookValidation.maximumTitleLength) characters (at most \(BookValidation.maximumTitleBytes) bytes), not blank, and no control characters."
        case .invalidAuthor:
            "An author needs at most \(BookValidation.maximumAuthorLength) characters (\(BookValidation.maximumAuthorBytes) bytes) and no control characters."
        case let .conflict(expected, actual):
            "Someone else saved this book (you edited revision \(expected), it is now at \(actual))."
        case .invalidResponse: "The store gave a malformed answer; nothing was taken from it."
        case .revisionExhausted: "This book cannot take another revision."
        case .unrecordedBeforeBatch:
            "Not undone: the history has no record of this book as it was before the batch (another program changed it), so there is nothing to put back."
        case .notAllowed: "This account may not do that."
        case let .storeUnavailable(reason): "The catalog is unavailable: \(reason)"
        case let .storeRefused(reason): "The catalog refuses: \(reason)"
        case .outcomeUnknown: "The save was sent, but whether it committed is unknown."
        case .unsupported: "This catalog does not support that."
        case let .invalidField(field, reason): "\(field.label): \(reason)."
        }
    }
}

/// What an account may do. Stores enforce it; the UI only reflects it.
public enum AccountRole: String, Sendable, Hashable, CaseIterable {
    case reader
    case editor
}

/// A person's identity in a catalog: which books they see (`scope`) and whether they may edit.
public struct Account: Sendable, Hashable {
    public let name: String
    public let role: AccountRole
    public let scope: String

    public init(name: String, role: AccountRole, scope: String) {
        self.name = name
        self.role = role
        self.scope = scope
    }
}
