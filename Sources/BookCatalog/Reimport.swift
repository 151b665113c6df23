/// How `bookshelf import` treats books already in the catalog (issue 60).
public struct ReimportPlan: Sendable, Equatable {
    /// The source the books come from; nil for a plain CSV or JSON Lines file.
    public var source: ImportSourceKind?
    /// A book without an origin (a plain file's) is the catalog's book with its ISBN
    /// (`--match isbn`); otherwise it is always added, as before re-import existed.
    public var matchByISBN: Bool
    /// A conflict takes the source's value (`--prefer source`) instead of keeping yours.
    public var preferSource: Bool
    /// Work it all out, change nothing (`--dry-run`).
    public var dryRun: Bool
    /// Delete the books gone from the source (`--remove-missing`) instead of only reporting them.
    public var removeMissing: Bool

    public init(
        source: ImportSourceKind?, matchByISBN: Bool = false, preferSource: Bool = false, dryRun: Bool = false,
        removeMissing: Bool = false
    ) {
        self.source = source
        self.matchByISBN = matchByISBN
        self.preferSource = preferSource
        self.dryRun = dryRun
        self.removeMissing = removeMissing
    }

    /// Whether any book can be the same as one in the catalog: else the import only adds.
    public var matches: Bool { source != nil || matchByISBN }
}

/// A book of the catalog a re-import row is the same book as, and what the last import of that
/// source brought for it.
public struct ReimportMatch: Sendable, Equatable {
    public let current: BookRecord
    /// Nil when the book was never imported from this source (found by ISBN alone).
    public let base: NewBook?

    public init(current: BookRecord, base: NewBook?) {
        self.current = current
        self.base = base
    }
}

/// A store's side of a re-import: the reads and writes `Reimport.run` makes inside the one
/// transaction the store holds for it, so the whole import commits or nothing does.
///
/// It is also where the store keeps provenance: for each imported book, the source's kind, the
/// source's id for it (none for a plain file matched by ISBN) and the values that import
/// brought. SQLite and PostgreSQL keep it in the catalog, beside the books and under the same
/// rules of who sees what; a store whose books live in a file it must not write to (a Calibre
/// library opened in place) keeps it elsewhere, behind this same protocol.
public protocol ReimportTransaction {
    /// The book of the scope an import of `origin.source` remembers by `origin`, if any.
    /// Throws `Reimport.Failure.repeatedSourceID` when this import has remembered it already.
    mutating func book(remembered origin: BookOrigin) throws -> ReimportMatch?
    /// The scope's book with `isbn` (the lowest id, if several have it) that this import has
    /// not matched yet and that no import of `source` remembers by an id of its own, with what
    /// the last import of `source` brought for it if one remembered it. So each book of the
    /// catalog is the same as one row at most, and a book known by one id is never taken for
    /// another id's.
    mutating func book(isbn: String, source: ImportSourceKind) throws -> ReimportMatch?
    /// Adds a validated book at revision 1; its id.
    mutating func add(_ book: NewBook) throws -> Int
    /// Saves `values` over the book as a new revision if it is still at `expectedRevision`
    /// (compare-and-set); false when another save came first.
    mutating func save(_ values: NewBook, id: Int, expectedRevision: Int) throws -> Bool
    /// Remembers that this import brought `values` for the book from `source` (with the
    /// source's `id` for it, if the source has ids).
    mutating func remember(book id: Int, source: ImportSourceKind, sourceID: String?, values: NewBook) throws
    /// The books of the scope an earlier import of `source` remembered and this one did not,
    /// in id order: at most `limit`, and how many there are in all.
    mutating func forgotten(source: ImportSourceKind, limit: Int) throws -> (books: [BookRecord], count: Int)
    /// Deletes the books `forgotten` names (all of them, not only the listed ones), recording
    /// each deletion for its history and telling the catalog's readers, as a save does; how
    /// many were deleted.
    mutating func deleteForgotten(source: ImportSourceKind) throws -> Int
}

/// What a re-import did, or in a dry run would do.
public struct ReimportReport: Sendable, Equatable {
    /// One field of one book both the source and the catalog changed.
    public struct Conflict: Sendable, Equatable {
        public let bookID: Int
        public let title: String
        public let field: BookField
        /// Whether the source's value was saved (`--prefer source`) or yours kept.
        public let tookSource: Bool
    }

    public var added = 0
    /// Books saved with a new revision.
    public var updated = 0
    /// The fields those saves took from the source.
    public var updatedFields = 0
    /// Books matched and left as they were.
    public var unchanged = 0
    public var conflictCount = 0
    /// The first `listedLimit` conflicts, in file order.
    public var conflicts: [Conflict] = []
    public var goneCount = 0
    /// The first `listedLimit` books gone from the source, in id order.
    public var gone: [BookRecord] = []
    /// Whether the books gone from the source were deleted (or, in a dry run, would be).
    public var goneDeleted = false

    /// Conflicts and books gone listed by name; the rest are counted. A source can hold any
    /// number, and a report of a million lines helps nobody.
    public static let listedLimit = 1_000

    public init() {}

    /// Nothing matched and nothing gone: every book of the source was new (a first import).
    public var onlyAdded: Bool { updated == 0 && unchanged == 0 && conflictCount == 0 && goneCount == 0 }

    /// "added 12, updated 30 (41 fields), unchanged 900, conflicts 2, gone from the source 3";
    /// `number` writes the counts (the command line groups thousands).
    public func summary(number: (Int) -> String = { String($0) }) -> String {
        "added \(number(added)), updated \(number(updated)) (\(number(updatedFields)) field\(updatedFields == 1 ? "" : "s")), "
            + "unchanged \(number(unchanged)), conflicts \(number(conflictCount)), "
            + "gone from the source \(number(goneCount))\(goneDeleted && goneCount > 0 ? " (deleted)" : "")"
    }
}

/// A re-import, store-agnostic: each book of the source is matched (by the origin an earlier
/// import remembered, else by ISBN), merged three ways (`ReimportMerge`) and saved, or added;
/// then the books gone from the source are counted. The store runs it inside one transaction.
public enum Reimport {
    /// Why a re-import stopped: the store's transaction is rolled back.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Two rows of the source carry the same id.
        case repeatedSourceID(String)
        /// A book changed between its read and its save inside the transaction: another writer
        /// the store's lock should have kept out.
        case changedMeanwhile(id: Int)
        case invalidBook(index: Int, reason: BookFailure)
        /// The books gone from the source were not the ones the same transaction had counted.
        case goneMiscounted(counted: Int, deleted: Int)

        public var description: String {
            switch self {
            case let .repeatedSourceID(id):
                "two books of the source carry the id \(id); a source's ids name one book each"
            case let .changedMeanwhile(id): "book \(id) changed while it was being updated; nothing was imported"
            case let .invalidBook(index, reason): "book \(index + 1) of the source: \(reason.description)"
            case let .goneMiscounted(counted, deleted):
                "\(counted) books were gone from the source but \(deleted) were deleted; nothing was imported"
            }
        }
    }

    public static func run(
        _ books: some Sequence<SourcedBook>, plan: ReimportPlan, in transaction: inout some ReimportTransaction
    ) throws -> ReimportReport {
        var report = ReimportReport()
        var index = 0
        for sourced in books {
            defer { index += 1 }
            let theirs: NewBook
            do { theirs = try sourced.book.validated() } catch {
                throw Failure.invalidBook(index: index, reason: error)
            }
            // A plain file's books are remembered under the plain file's kind, without an id.
            let source = sourced.origin?.source ?? (plan.matchByISBN ? .plainFile : nil)
            guard let source, plan.matches else {
                _ = try transaction.add(theirs)
                report.added += 1
                continue
            }
            var match: ReimportMatch?
            if let origin = sourced.origin { match = try transaction.book(remembered: origin) }
            if match == nil, let isbn = theirs.details.isbn {
                match = try transaction.book(isbn: isbn, source: source)
            }
            guard let match else {
                let id = try transaction.add(theirs)
                try transaction.remember(book: id, source: source, sourceID: sourced.origin?.id, values: theirs)
                report.added += 1
                continue
            }
            let current = match.current
            let yours = NewBook(title: current.title, author: current.author, details: current.details)
            let merge = ReimportMerge(base: match.base, theirs: theirs, yours: yours, preferSource: plan.preferSource)
            for field in merge.conflicts {
                report.conflictCount += 1
                if report.conflicts.count < ReimportReport.listedLimit {
                    report.conflicts.append(
                        .init(bookID: current.id, title: current.title, field: field, tookSource: plan.preferSource))
                }
            }
            if merge.updated.isEmpty {
                report.unchanged += 1
            } else {
                guard try transaction.save(merge.merged, id: current.id, expectedRevision: current.revision) else {
                    throw Failure.changedMeanwhile(id: current.id)
                }
                report.updated += 1
                report.updatedFields += merge.updated.count
            }
            // The new base is what the source said now, whatever was kept of it: a conflict
            // kept as yours is not raised again until the source changes that field again.
            try transaction.remember(book: current.id, source: source, sourceID: sourced.origin?.id, values: theirs)
        }
        let remembered = plan.source ?? (plan.matchByISBN ? .plainFile : nil)
        if let remembered {
            let forgotten = try transaction.forgotten(source: remembered, limit: ReimportReport.listedLimit)
            report.gone = forgotten.books
            report.goneCount = forgotten.count
            if plan.removeMissing {
                report.goneDeleted = true
                let deleted = try transaction.deleteForgotten(source: remembered)
                // The same transaction counted them a moment ago: anything else is a bug.
                guard deleted == forgotten.count else {
                    throw Failure.goneMiscounted(counted: forgotten.count, deleted: deleted)
                }
            }
        }
        return report
    }
}
