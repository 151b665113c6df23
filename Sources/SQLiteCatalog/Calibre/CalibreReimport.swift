import BookCatalog
import Foundation

/// A re-import's reads and writes (`ReimportTransaction`) on a Calibre library in place: the
/// books read and written in one transaction of calibre's (`CalibreBooks`, `CalibreBookWrite`,
/// `CalibreBookAdd`), what the imports remember in Bookshelf's own file beside the library
/// (`CalibreImportProvenance`), in a transaction of that file held as long. The merge is
/// `Reimport.run`'s, as on every store.
struct CalibreReimport: ReimportTransaction {
    let database: CalibreDatabase
    let file: String
    let provenance: CalibreImportProvenance
    /// This import's stamp: greater than every earlier one.
    let stamp: Int

    /// A reader whose work is metered for one call, as a session's are.
    private func reader() -> CalibreReader {
        CalibreReader(database: database, file: file, budget: CalibreLibrary.WorkBudget(forFileOf: database.bytes))
    }

    private func record(_ id: Int) throws -> BookRecord? {
        try CalibreBooks.read(reader(), book: id).records.first
    }

    mutating func book(remembered origin: BookOrigin) throws -> ReimportMatch? {
        guard let found = try provenance.book(source: origin.source, id: origin.id) else { return nil }
        if found.stamp == stamp { throw Reimport.Failure.repeatedSourceID(origin.id) }
        // A book calibre deleted since is a new book again.
        guard let current = try record(found.book) else { return nil }
        return ReimportMatch(current: current, base: found.values)
    }

    mutating func book(isbn: String, source: ImportSourceKind) throws -> ReimportMatch? {
        for id in try books(withISBN: isbn) {
            let base = try provenance.base(of: id, source: source)
            if base?.sourceID != nil { continue }
            if try provenance.remembers(id, stamp: stamp) { continue }
            guard let current = try record(id), current.details.isbn == isbn else { continue }
            return ReimportMatch(current: current, base: base?.values)
        }
        return nil
    }

    /// The books whose ISBN identifier may be `isbn` (canonical, thirteen digits), in id order:
    /// calibre keeps it as typed, hyphens and the ten-digit form included, so the candidates are
    /// those with its digits, and the caller compares each book's ISBN as Bookshelf reads it.
    private func books(withISBN isbn: String) throws -> [Int] {
        let body = isbn.hasPrefix("978") ? String(isbn.dropFirst(3).prefix(9)) : ""
        let digits = "upper(replace(replace(val, '-', ''), ' ', ''))"
        return try reader().rows(
            of: "its identifiers table",
            """
            SELECT DISTINCT book FROM identifiers
            WHERE type = 'isbn' AND (\(digits) = ?1 OR (length(\(digits)) = 10 AND substr(\(digits), 1, 9) = ?2))
            ORDER BY book
            """, [.text(isbn), .text(body)]
        ) { $0.int(0) }
    }

    mutating func add(_ book: NewBook) throws -> Int {
        try CalibreBookAdd.add(book, reader: reader(), at: CalibreTimestamp.now())
    }

    mutating func save(_ values: NewBook, id: Int, expectedRevision: Int) throws -> Bool {
        let reader = reader()
        guard let stored = try CalibreBooks.read(reader, book: id).records.first, stored.revision == expectedRevision
        else { return false }
        let write = CalibreBookWrite(reader: reader, book: id)
        let others = try write.write(
            SaveRequest(
                id: id, title: values.title, author: values.author, details: values.details,
                expectedRevision: expectedRevision),
            over: stored)
        // A later time than the stored one, whatever the clock says: a revision only grows.
        try write.touch(others.union([id]), at: max(CalibreTimestamp.now(), stored.revision + 1))
        return true
    }

    mutating func remember(book id: Int, source: ImportSourceKind, sourceID: String?, values: NewBook) throws {
        try provenance.remember(book: id, source: source, sourceID: sourceID, stamp: stamp, values: values)
    }

    mutating func forgotten(source: ImportSourceKind, limit: Int) throws -> (books: [BookRecord], count: Int) {
        var listed: [BookRecord] = []
        var count = 0
        var deletedInCalibre: [Int] = []
        let remembered = try provenance.books(source: source, before: stamp)
        var start = 0
        while start < remembered.count {
            let page = Array(remembered[start..<min(start + Self.page, remembered.count)])
            start += page.count
            let records = try CalibreBooks.read(reader(), books: page).records
            let present = Set(
                try reader().rows(
                    of: "its books table", "SELECT id FROM books WHERE id IN (SELECT value FROM json_each(?1))",
                    [.text("[" + page.map(String.init).joined(separator: ",") + "]")]
                ) { $0.int(0) })
            deletedInCalibre += page.filter { !present.contains($0) }
            count += records.count
            listed += records.sorted { $0.id < $1.id }.prefix(max(0, limit - listed.count))
        }
        // calibre deleted them: nothing is gone from the library, and nothing is left to remember.
        try provenance.forget(deletedInCalibre)
        return (listed, count)
    }

    /// Books read at once while the gone ones are counted.
    private static let page = 1_000

    mutating func deleteForgotten(source: ImportSourceKind) throws -> Int {
        throw CalibreLibrary.Failure(description: CalibreLibraryStore.removeMissingRefusal)
    }
}

extension CalibreLibraryStore {
    /// Why `import --remove-missing` is refused on a library: deleting a book there is
    /// deleting its folder and files, which is calibre's to do.
    public static let removeMissingRefusal =
        "books gone from the source are kept in a Calibre library: delete them in calibre (no --remove-missing here)"

    /// Runs a re-import of `books` into the library (`Reimport.run`) under calibre's lock, in
    /// one transaction of `metadata.db` and one of Bookshelf's file for the library in
    /// `stateFolder` (`CalibreImportProvenance`), committed only if `commitIf` says so after the
    /// last book and the plan is no dry run; a dry run's report is what it would do.
    ///
    /// calibre's transaction commits first, then the provenance's: were the second commit to
    /// fail, the books are in the library and the earlier import's provenance is kept, so the
    /// next import finds the new books by ISBN or adds them again, but never takes a source's
    /// change for one already merged.
    public func reimport(
        _ books: some Sequence<SourcedBook>, plan: ReimportPlan, stateFolder: String?,
        commitIf: () -> Bool = { true }
    ) throws(CalibreLibrary.Failure) -> ReimportReport {
        try reimport(
            books, plan: plan, stateFolder: stateFolder, lockName: CalibreInstanceLock.name, commitIf: commitIf)
    }

    /// `reimport` taking the lock of `lockName`: tests must never take the user's calibre's.
    func reimport(
        _ books: some Sequence<SourcedBook>, plan: ReimportPlan, stateFolder: String?, lockName: String,
        commitIf: () -> Bool = { true }
    ) throws(CalibreLibrary.Failure) -> ReimportReport {
        if let permanentlyReadOnly { throw CalibreLibrary.Failure(description: permanentlyReadOnly) }
        if plan.removeMissing { throw CalibreLibrary.Failure(description: Self.removeMissingRefusal) }
        guard let stateFolder else {
            throw CalibreLibrary.Failure(
                description:
                    "Bookshelf has no state folder ($XDG_STATE_HOME or $HOME) to remember this library's imports in")
        }
        let provenance: CalibreImportProvenance
        do {
            guard let stateFile = try CalibreSaveLog.stateFile(stateFolder: stateFolder, libraryID: libraryID) else {
                throw CalibreLibrary.Failure(description: "this library's uuid cannot name Bookshelf's record of it")
            }
            provenance = try CalibreImportProvenance(file: stateFile)
        } catch let failure as CalibreLibrary.Failure {
            throw failure
        } catch {
            throw CalibreLibrary.Failure(
                description: "cannot keep Bookshelf's record of this library in \(stateFolder): \(error)")
        }
        let database = try CalibreDatabase.openInPlace(file, writable: true)
        let lock: CalibreInstanceLock.Held
        switch CalibreInstanceLock.take(name: lockName) {
        case let .taken(held): lock = held
        case .heldByCalibre: throw CalibreLibrary.Failure(description: Self.calibreIsRunning)
        case let .unknown(reason): throw CalibreLibrary.Failure(description: reason)
        }
        // Held until every transaction has ended.
        defer { withExtendedLifetime(lock) {} }
        do {
            try CalibreFunctions.register(on: database.connection)
            return try provenance.connection.transaction(immediate: true) {
                try database.connection.transaction(immediate: true) {
                    var transaction = CalibreReimport(
                        database: database, file: file, provenance: provenance, stamp: try provenance.nextStamp())
                    let report = try Reimport.run(books, plan: plan, in: &transaction)
                    guard commitIf() else { throw CalibreLibrary.Failure(description: "the import was withdrawn") }
                    if plan.dryRun { throw DryRun(report: report) }
                    return report
                }
            }
        } catch let dryRun as DryRun {
            return dryRun.report
        } catch let failure as CalibreLibrary.Failure {
            throw failure
        } catch let failure as Reimport.Failure {
            throw CalibreLibrary.Failure(description: failure.description)
        } catch {
            throw CalibreLibrary.Failure(description: "cannot import into the Calibre library \(file): \(error)")
        }
    }

    /// Carries a dry run's report out of the transactions it rolls back.
    private struct DryRun: Error {
        let report: ReimportReport
    }
}
