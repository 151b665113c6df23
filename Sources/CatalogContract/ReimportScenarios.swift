import BookCatalog
import Foundation
import Testing

/// A catalog a generated re-import scenario runs against: one scope, one editor. Each store's
/// test target runs `ReimportScenario.run` with a store of its own (issue 60).
public protocol ReimportScenarioStore: Sendable {
    func reimport(_ books: [SourcedBook], plan: ReimportPlan) async throws -> ReimportReport
    /// Every book of the scope.
    func books() async throws -> [BookRecord]
    /// A local edit: the editor's compare-and-set save of every field.
    func edit(_ book: BookRecord, to values: NewBook) async throws
    /// A book added here, not by an import.
    func add(_ book: NewBook) async throws -> BookRecord
    /// The editor's view of a book's history, and of its deletion by an import.
    func history(of id: Int) async throws -> [BookRevision]
    func deletion(of id: Int) async throws -> BookDeletion?
}

/// Seeded scenarios of import, local edits, source edits and re-import (issue 60). The
/// expected value of every field of every book, and the report's counts, follow from what the
/// scenario did (which side changed which field since the last import, and whether both wrote
/// the same value), by the three-way rule as the issue states it; never from comparing values
/// the way the code under test does.
public struct ReimportScenario {
    /// One book as the scenario knows it.
    struct Book {
        /// Goodreads' id for it; nil for a book added here only.
        var sourceID: String?
        var inSource: Bool
        /// What the source says now.
        var source: NewBook
        /// What the catalog should hold.
        var catalog: NewBook
        /// Whether an import has brought it (so the store remembers a base).
        var remembered = false
        /// The catalog's id, once known.
        var id: Int?
        /// Since the last import: fields the source changed, fields changed here, and the fields
        /// both changed to one value.
        var sourceChanged: Set<BookField> = []
        var localChanged: Set<BookField> = []
        var bothSame: Set<BookField> = []
        /// A book added here that the source now has too (matched by ISBN, with no base): the
        /// fields the scenario made different on the two sides.
        var differsWithoutBase: Set<BookField>?
    }

    var random: SeededGenerator
    var books: [Book] = []
    /// The books the last import deleted (`--remove-missing`), as the catalog last held them.
    var deleted: [(id: Int, last: NewBook)] = []
    private var counter = 0
    private var nextSourceID = 1

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    // MARK: Values

    private mutating func fresh() -> Int {
        counter += 1
        return counter
    }

    /// A valid ISBN-13 no other value of the scenario has.
    private mutating func freshISBN() -> String {
        let body = "978" + String(format: "%09d", 100_000_000 + fresh())
        let sum = body.enumerated().reduce(0) { $0 + Int(String($1.element))! * ($1.offset.isMultiple(of: 2) ? 1 : 3) }
        return body + String((10 - sum % 10) % 10)
    }

    private mutating func newBook() -> NewBook {
        let n = fresh()
        return Self.valid(
            NewBook(
                title: "Title \(n)", author: "Author \(n)",
                details: BookDetails(
                    isbn: freshISBN(), year: 1500 + n, publisher: "Publisher \(n)", series: "Series \(n)",
                    seriesIndex: SeriesIndex(thousandths: n * 500), tags: ["tag \(n)", "shelf \(n)"],
                    notes: "Note \(n)\nsecond line")))
    }

    static func valid(_ book: NewBook) -> NewBook {
        do { return try book.validated() } catch { fatalError("a generated book breaks a rule: \(error)") }
    }

    /// `book` with `field` set to a value it has never held; sometimes none, if it had one and
    /// `mayClear` (not where the other side changed the field: two sides clearing a field would
    /// write one value, which the scenario must not take for two).
    private mutating func changing(_ field: BookField, of book: NewBook, mayClear: Bool = true) -> NewBook {
        let n = fresh()
        let clears = mayClear && random.next(upTo: 5) == 0
        var (title, author, d) = (book.title, book.author, book.details)
        var (isbn, year, publisher, series) = (d.isbn, d.year, d.publisher, d.series)
        var (index, tags, notes) = (d.seriesIndex, d.tags, d.notes)
        switch field {
        case .title: title = "Title \(n)"
        case .author: author = clears && !author.isEmpty ? "" : "Author \(n)"
        case .isbn: isbn = clears && isbn != nil ? nil : freshISBN()
        case .year: year = clears && year != nil ? nil : 1000 + n
        case .publisher: publisher = clears && !publisher.isEmpty ? "" : "Publisher \(n)"
        case .series: series = clears && !series.isEmpty ? "" : "Series \(n)"
        case .seriesIndex: index = clears && index != nil ? nil : SeriesIndex(thousandths: n * 500 + 250)
        case .tags: tags = clears && !tags.isEmpty ? [] : ["tag \(n)"]
        case .notes: notes = clears && !notes.isEmpty ? "" : "Changed \(n)"
        }
        d = BookDetails(
            isbn: isbn, year: year, publisher: publisher, series: series, seriesIndex: index, tags: tags, notes: notes)
        return Self.valid(NewBook(title: title, author: author, details: d))
    }

    /// `book` with `field` taken from `other`.
    static func taking(_ field: BookField, from other: NewBook, into book: NewBook) -> NewBook {
        let (o, d) = (other.details, book.details)
        return valid(
            NewBook(
                title: field == .title ? other.title : book.title,
                author: field == .author ? other.author : book.author,
                details: BookDetails(
                    isbn: field == .isbn ? o.isbn : d.isbn, year: field == .year ? o.year : d.year,
                    publisher: field == .publisher ? o.publisher : d.publisher,
                    series: field == .series ? o.series : d.series,
                    seriesIndex: field == .seriesIndex ? o.seriesIndex : d.seriesIndex,
                    tags: field == .tags ? o.tags : d.tags, notes: field == .notes ? o.notes : d.notes)))
    }

    private mutating func someFields() -> [BookField] {
        BookField.allCases.filter { _ in random.next(upTo: 3) == 0 }
    }

    // MARK: Steps

    /// Books new in the source.
    mutating func addToSource(_ count: Int) {
        for _ in 0..<count {
            let book = newBook()
            books.append(
                Book(sourceID: String(nextSourceID), inSource: true, source: book, catalog: book))
            nextSourceID += 1
        }
    }

    /// Edits here, through `store`: a few fields of a few books the catalog holds.
    mutating func editLocally(_ store: some ReimportScenarioStore) async throws {
        let current = Dictionary(uniqueKeysWithValues: try await store.books().map { ($0.id, $0) })
        for index in books.indices where books[index].id != nil && random.next(upTo: 3) == 0 {
            for field in someFields() where !books[index].localChanged.contains(field) {
                books[index].catalog = changing(field, of: books[index].catalog)
                books[index].localChanged.insert(field)
            }
            guard let id = books[index].id, let record = current[id] else { continue }
            try await store.edit(record, to: books[index].catalog)
        }
    }

    /// Edits in the source: a few fields of a few of its books, some to the value the catalog
    /// was just given for that field; and a few books gone from it.
    mutating func editSource() {
        for index in books.indices where books[index].inSource && books[index].remembered {
            if random.next(upTo: 8) == 0 {
                books[index].inSource = false
                continue
            }
            guard random.next(upTo: 3) == 0 else { continue }
            for field in someFields() where !books[index].sourceChanged.contains(field) {
                if books[index].localChanged.contains(field), random.next(upTo: 2) == 0 {
                    books[index].source = Self.taking(field, from: books[index].catalog, into: books[index].source)
                    books[index].bothSame.insert(field)
                } else {
                    books[index].source = changing(
                        field, of: books[index].source, mayClear: !books[index].localChanged.contains(field))
                }
                books[index].sourceChanged.insert(field)
            }
        }
    }

    /// A book added here, then a row in the source with its ISBN and some of its fields
    /// different: the same book, with no earlier import to tell whose each difference is.
    mutating func addHereAndToSource(_ store: some ReimportScenarioStore) async throws {
        let here = newBook()
        let record = try await store.add(here)
        var there = here
        var differs: Set<BookField> = []
        for field in someFields() where field != .isbn {
            there = changing(field, of: there)
            differs.insert(field)
        }
        books.append(
            Book(
                sourceID: String(nextSourceID), inSource: true, source: there, catalog: here, id: record.id,
                differsWithoutBase: differs))
        nextSourceID += 1
    }

    /// The source as a file would give it, in the scenario's order.
    var sourceRows: [SourcedBook] {
        books.filter(\.inSource).map {
            SourcedBook($0.source, origin: BookOrigin(source: .goodreads, id: $0.sourceID ?? ""))
        }
    }

    /// What the import will do, by the rule, and the books as the catalog should hold them after.
    mutating func expectImport(preferSource: Bool, removeMissing: Bool = false) -> ReimportReport {
        var report = ReimportReport()
        report.goneDeleted = removeMissing
        deleted = []
        defer {
            // A book gone from the source is no book of the catalog's any more.
            if removeMissing { books.removeAll { !$0.inSource && $0.remembered } }
        }
        for index in books.indices {
            var book = books[index]
            // A conflict kept as yours stays your change against the new base (what the source
            // said), so a later change of the source's to it is a conflict again.
            var keptYours: Set<BookField> = []
            defer {
                book.sourceChanged = []
                book.localChanged = keptYours
                book.bothSame = []
                book.differsWithoutBase = nil
                books[index] = book
            }
            guard book.inSource else {
                if book.remembered {
                    report.goneCount += 1
                    if removeMissing, let id = book.id { deleted.append((id, book.catalog)) }
                }
                keptYours = book.localChanged
                continue
            }
            guard book.remembered || book.differsWithoutBase != nil else {
                report.added += 1
                book.catalog = book.source
                book.remembered = true
                continue
            }
            var taken = 0
            if let differs = book.differsWithoutBase {
                report.conflictCount += differs.count
                if preferSource {
                    for field in differs { book.catalog = Self.taking(field, from: book.source, into: book.catalog) }
                    taken = differs.count
                } else {
                    keptYours = differs
                }
            } else {
                for field in book.sourceChanged where !book.bothSame.contains(field) {
                    if book.localChanged.contains(field) {
                        report.conflictCount += 1
                        guard preferSource else {
                            keptYours.insert(field)
                            continue
                        }
                    }
                    book.catalog = Self.taking(field, from: book.source, into: book.catalog)
                    taken += 1
                }
            }
            keptYours.formUnion(book.localChanged.subtracting(book.sourceChanged))
            book.remembered = true
            if taken > 0 {
                report.updated += 1
                report.updatedFields += taken
            } else {
                report.unchanged += 1
            }
        }
        return report
    }

    /// Learns the ids of the books just added, by their ISBN (each new book's is its own).
    mutating func learnIDs(from records: [BookRecord]) {
        let known = Set(books.compactMap(\.id))
        for record in records where !known.contains(record.id) {
            if let index = books.firstIndex(where: { $0.id == nil && $0.catalog.details.isbn == record.details.isbn }) {
                books[index].id = record.id
            }
        }
    }

    /// Every field of every book against the scenario; and no book more or less.
    func check(_ records: [BookRecord], _ context: String) {
        #expect(records.count == books.count, "\(context): \(records.count) books, expected \(books.count)")
        let byID = Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0) })
        for book in books {
            guard let id = book.id, let record = byID[id] else {
                Issue.record("\(context): a book of the scenario is not in the catalog: \(book.catalog)")
                continue
            }
            let held = NewBook(title: record.title, author: record.author, details: record.details)
            #expect(held == book.catalog, "\(context): book \(id)")
        }
    }

    /// Runs one whole scenario against `store`.
    public static func run(seed: UInt64, on store: some ReimportScenarioStore) async throws {
        var scenario = ReimportScenario(seed: seed)
        scenario.addToSource(3 + scenario.random.next(upTo: 8))
        let rounds = 1 + scenario.random.next(upTo: 4)
        for round in 0...rounds {
            if round > 0 {
                try await scenario.editLocally(store)
                scenario.editSource()
                scenario.addToSource(scenario.random.next(upTo: 3))
                if scenario.random.next(upTo: 3) == 0 { try await scenario.addHereAndToSource(store) }
            }
            let preferSource = scenario.random.next(upTo: 3) == 0
            let removeMissing = scenario.random.next(upTo: 3) == 0
            let rows = scenario.sourceRows
            let plan = ReimportPlan(source: .goodreads, preferSource: preferSource, removeMissing: removeMissing)
            let context =
                "seed \(seed), round \(round)\(preferSource ? ", --prefer source" : "")"
                + (removeMissing ? ", --remove-missing" : "")
            let before = try await store.books()
            let expected = scenario.expectImport(preferSource: preferSource, removeMissing: removeMissing)
            if scenario.random.next(upTo: 3) == 0 {
                var dryRun = plan
                dryRun.dryRun = true
                let report = try await store.reimport(rows, plan: dryRun)
                #expect(counts(report) == counts(expected), "\(context), dry run")
                #expect(try await store.books() == before, "\(context): a dry run changed the catalog")
            }
            let report = try await store.reimport(rows, plan: plan)
            #expect(counts(report) == counts(expected), "\(context)")
            #expect(report.conflicts.allSatisfy { $0.tookSource == preferSource }, "\(context)")
            let after = try await store.books()
            scenario.learnIDs(from: after)
            scenario.check(after, context)
            try await scenario.checkDeleted(on: store, context)
        }
    }

    /// Each book the import deleted: its history still there, ending with what the catalog
    /// held of it, and its deletion recorded as this source's.
    func checkDeleted(on store: some ReimportScenarioStore, _ context: String) async throws {
        for (id, last) in deleted {
            let history = try await store.history(of: id)
            let deletion = try await store.deletion(of: id)
            #expect(deletion?.source == .goodreads, "\(context): book \(id) deleted")
            guard let newest = history.first else {
                Issue.record("\(context): book \(id) deleted has no history")
                continue
            }
            #expect(deletion?.revision == newest.record.revision, "\(context): book \(id)'s last revision")
            let held = NewBook(title: newest.record.title, author: newest.record.author, details: newest.record.details)
            #expect(held == last, "\(context): book \(id)'s history ends as the catalog held it")
        }
    }

    private static func counts(_ report: ReimportReport) -> [Int] {
        [
            report.added, report.updated, report.updatedFields, report.unchanged, report.conflictCount,
            report.goneCount, report.goneDeleted ? 1 : 0,
        ]
    }
}

/// SplitMix64: the same numbers for the same seed on every machine.
struct SeededGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next(upTo bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Int(z % UInt64(bound))
    }
}
