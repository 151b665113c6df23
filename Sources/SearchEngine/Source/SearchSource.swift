import BookCatalog

/// Where the search engine reads books from: one store's books of one scope (an account's), read
/// on one connection of the store's own. The engine never reads a store's tables itself; a store
/// implements this over them (SQLite's `SQLiteSearchSource` over the `books` table), and the engine
/// builds, stores, opens, catches up and answers from its index through it alone.
///
/// Two kinds of read, as the engine needs them:
/// - every book, with what the engine indexes (`SourceBook`): in the order the source reads
///   fastest (`everyBook`), in title order (`idsInTitleOrder`, `booksInTitleOrder`), or by ISBN;
/// - what changed since a marker (`changes(since:)`, and the books removed, `removals(since:)`):
///   `latestChange()` is the marker of the source's current state, and grows with every change,
///   a removal included.
///
/// A source is used from one thread at a time. Every read inside one `inOneRead` sees one state
/// of the books; a read outside it sees the state of its own moment.
package protocol SearchSource: AnyObject {
    /// Runs `body` in one read of the source: everything read in it sees one state of the books.
    func inOneRead<T>(_ body: () throws -> T) throws -> T

    /// Runs `body`, an index build's reads of every book (`latestChange` first, then `census`,
    /// `everyBook`, `idsInTitleOrder`), so that they all see one state of the books. A source
    /// whose readers hold other programs' writes off (a Calibre library, in SQLite's rollback
    /// journal) may read that state in short reads of its own before `body` runs, rather than in
    /// one read as long as the build: the state then holds every change up to the marker
    /// `latestChange` gives in `body`, and perhaps some made after it, which the changes and
    /// removals since that marker give again, so that an index caught up from it ends exact.
    func readingEveryBook<T>(_ body: () throws -> T) throws -> T

    /// The marker of the latest change, as of the current read: 0 for none, larger for every change.
    func latestChange() throws -> Int

    /// How many books there are and their id range: the engine sizes its arrays by it, and a
    /// book read outside it is damage.
    func census() throws -> BookCensus

    /// Every book with an id above `after` (all, when nil), in ascending id order: the order the
    /// source reads fastest. `holding`, when not empty: the source may leave out a book whose terms
    /// do not hold every one of these tokens somewhere (a filter it can apply cheaply; the engine
    /// judges every book it is given by the matching rule anyway).
    func everyBook(after: Int?, holding: [[UInt8]], _ visit: (SourceBook) throws -> Void) throws

    /// The ids of the books in title order (`titleKey`, then id), from `offset`, at most `limit`
    /// (all, when nil).
    func idsInTitleOrder(offset: Int, limit: Int?, _ visit: (Int) throws -> Void) throws

    /// The books whose title keys lie in `[from, upTo)`, in title order, while `visit` says go on.
    func booksInTitleOrder(from: [UInt8], upTo: [UInt8], _ visit: (SourceBook) throws -> Bool) throws

    /// The books changed (added or edited) after `marker`, in any order, at most `limit`.
    func changes(since marker: Int, limit: Int, _ visit: (SourceBook) throws -> Void) throws

    /// The ids of the books removed after `marker` (and not there now), in any order, at most
    /// `limit`. A source whose books are never removed answers none; one that sees another
    /// program delete rows (a Calibre library) must, or an index would keep finding them.
    func removals(since marker: Int, limit: Int, _ visit: (Int) throws -> Void) throws

    /// How many books changed or were removed after `marker`, counting no further than `limit`.
    func changeCount(since marker: Int, upTo limit: Int) throws -> Int

    /// How many changes (removals included) there were after `marker`, counting no further than
    /// `limit` and as cheaply as the source can: never fewer than `changeCount` (SQLite counts every scope's, through its
    /// change index alone). It decides whether a catch-up is read away from the searches.
    func changeCountAtLeast(since marker: Int, upTo limit: Int) throws -> Int

    /// How many books there are, counting no further than `limit`.
    func bookCount(upTo limit: Int) throws -> Int

    /// Whether the title order (`idsInTitleOrder`, `booksInTitleOrder`) and the count
    /// (`bookCount`) are read from every book rather than from an index of the source's own (a
    /// Calibre library, whose tables hold no title key): then the first results come sooner from
    /// a stored index, even one a few changes behind, than from the title order, and a search
    /// waits for the stored index to be tried before it asks the ways without one.
    var titleOrderReadsEveryBook: Bool { get }

    /// The books with the ISBN `isbn` (as `SearchTerms.isbn` gives it), in any order.
    func books(withISBN isbn: String, _ visit: (SourceBook) throws -> Void) throws

    /// A book's title key as stored now, or nil when there is no such book.
    func titleKey(of id: Int) throws -> [UInt8]?

    /// Runs `body` so that a long read stops as soon as the current task is cancelled
    /// (throwing `CancellationError`): a search replaced by the next key.
    func cancellable<T>(_ body: () throws -> T) throws -> T

    /// Runs `body` with `pause` called every millisecond or so of the source's own work: a
    /// background build gives way to the searches a user waits on (`ForegroundWork`).
    func pausing<T>(_ pause: @escaping () -> Void, _ body: () throws -> T) rethrows -> T

    // The stored index: its file is the source's to place, and its record to keep.

    /// The index file of this source's books: beside the catalog for Bookshelf's own file, in a
    /// cache folder for a source that must not be written beside.
    var indexFilePath: String { get }

    /// The file whose permissions the index file takes (the catalog's: the index is as private
    /// as what it indexes), or nil for the default.
    var indexFileTakesModeOf: String? { get }

    /// Where a build's large arrays go while it runs (`BuildMemory`): a folder, or nil for memory.
    var scratchFolder: String? { get }

    /// Whether an index may be stored for the next connection (false for a source opened read-only:
    /// the index then lives in memory).
    var canStoreIndex: Bool { get }

    /// What the source recorded of its stored index in `format`, as of the current read, or nil.
    func storedIndexRecord(format: Int) throws -> StoredIndexRecord?

    /// Records `record` as the stored index, unless one of a later marker is recorded (false
    /// then, and nothing changes): in one write, `install` (which puts the file in place) runs
    /// first, so that the record and the file change together. Waits only briefly for other
    /// writers: the index is an aid, and the next connection stores it if this one cannot.
    func recordStoredIndex(_ record: StoredIndexRecord, install: () throws -> Void) throws -> Bool
}

/// A book as the engine reads it: its id and what the engine indexes (`BookText`'s forms:
/// the folded title key, and the title's, author's and other fields' terms). The bytes are
/// valid only during the call that hands the book over.
package struct SourceBook {
    package let id: Int
    package let titleKey: UnsafeBufferPointer<UInt8>
    package let titleTerms: UnsafeBufferPointer<UInt8>
    package let authorTerms: UnsafeBufferPointer<UInt8>
    package let otherTerms: UnsafeBufferPointer<UInt8>

    package init(
        id: Int, titleKey: UnsafeBufferPointer<UInt8>, titleTerms: UnsafeBufferPointer<UInt8>,
        authorTerms: UnsafeBufferPointer<UInt8>, otherTerms: UnsafeBufferPointer<UInt8>
    ) {
        self.id = id
        self.titleKey = titleKey
        self.titleTerms = titleTerms
        self.authorTerms = authorTerms
        self.otherTerms = otherTerms
    }
}

/// How many books a source has, and the smallest and largest of their ids (0 and 0 for none).
package struct BookCensus: Equatable {
    package let count: Int
    package let smallestID: Int
    package let largestID: Int

    package init(count: Int, smallestID: Int, largestID: Int) {
        self.count = count
        self.smallestID = smallestID
        self.largestID = largestID
    }
}

/// What a source records of its stored index: the change marker and book count it reflects,
/// and the engine's own text (`SearchIndexSnapshot.Expectation.recorded`: the file's id).
package struct StoredIndexRecord: Equatable {
    package let format: Int
    package let sequence: Int
    package let count: Int
    package let recorded: String

    package init(format: Int, sequence: Int, count: Int, recorded: String) {
        self.format = format
        self.sequence = sequence
        self.count = count
        self.recorded = recorded
    }
}

/// Opens a source of the same books on a connection of its own, for a background thread (a
/// build, a catch-up read away from the searches).
package protocol SearchSourceOpener: Sendable {
    func openSource() throws -> any SearchSource
}
