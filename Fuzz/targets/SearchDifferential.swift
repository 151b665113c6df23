// Fuzz target: the SQLite search engine against its one definition, `SearchTerms`, over the
// rows committed at the moment of each search, in every index state the remote can be put in.
// fuzz-needs: SQLiteCatalog
//
// From the input: a catalog of up to 60 books (titles and authors of ASCII, accents and
// combining marks, CJK, symbols, emoji and punctuation, some authors empty; some books with a
// series, a publisher, tags and notes from the same pieces, some with an ISBN of a few shared
// ones), then steps: searches (random words, prefixes of titles, authors, series, publishers
// and tags, one letter, an ISBN as ISBN-10 or ISBN-13, the empty query, with and without
// `countLater`, paged on by cursor or by offset to the last page), edits through a remote (new
// details, or none sent, which keeps them), inserts and edits committed by other connections
// to the same file, and index
// states: a remote whose build is held (answers from the books table), one made ready, one
// loading a stored index that is behind (its overlay), one whose index is distrusted, and one
// opening a damaged stored index file. Every page and total must be what `SearchTerms` gives
// over the books the target knows are committed (each write's returned record): any
// difference traps with the step, the query and both answers.
//
// Input: bytes read in order, 0 once they run out. One byte: the number of books; per book,
// its title and author; then one byte per step's kind followed by that step's own bytes.

import BookCatalog
import Dispatch
import Foundation
import SearchEngine

/// The scratch folder, under the fuzz build folder beside `bin/`, emptied for every input. Each
/// input's catalog has a folder of its own in it: a build a distrusted index cancelled may still
/// be ending when the next input starts, and must not reach that input's catalog.
private let scratch: String = {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    return binary.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
        "scratch/SearchDifferential"
    ).path
}()

/// The fuzzer's bytes, read in order; 0 once they run out, so every input decodes.
private struct ByteReader {
    let bytes: [UInt8]
    var at = 0

    var isDone: Bool { at >= bytes.count }

    mutating func byte() -> Int {
        defer { at += 1 }
        return at < bytes.count ? Int(bytes[at]) : 0
    }

    mutating func pick<T>(_ choices: [T]) -> T { choices[byte() % choices.count] }
}

/// The alphabet of titles, authors and queries: pieces of words and what goes between them.
private enum Alphabet {
    static let pieces = [
        "a", "al", "Alpha", "b", "rome", "Rom", "the", "of", "hi", "x", "History", "l", "café", "Cafe",
        "cafe\u{301}", "Zoë", "ÉCOLE", "naïve", "a\u{308}", "n\u{303}o", "o\u{302}\u{323}", "Ångström", "ß", "ss",
        "İstanbul", "ı", "ﬁne", "Ǆ", "ſ", "東京", "東", "京都", "漢字", "한국", "ｶﾀｶﾅ", "$", "€", "©", "½", "™", "→",
        "Ⅻ", "①", "😀", "👍🏽", "🇫🇷", "👩‍💻", "2nd", "1984", "٣", "Ελλάδα", "Москва", "ǅ", "x\u{FE0F}",
    ]
    static let separators = [
        " ", " ", " ", "  ", "-", "'", "’", ".", ",", ": ", "/", "&", "_", "(", ")", "\u{A0}", "—", "·", "!",
    ]
    static let letters = ["a", "b", "h", "r", "é", "e", "東", "ß", "i", "1", "😀", "$", "ı", "s", "&"]
    /// ISBNs a few books share, and queries for them: ISBN-13 and ISBN-10, with hyphens and
    /// spaces, and one with a wrong check digit (only text).
    static let isbns = ["9780131103627", "9780306406157", "9791090636071"]
    static let isbnQueries = [
        "9780131103627", "0-13-110362-8", "978-0-306-40615-7", " 0306406152 ", "979-10-90636-07-1",
        "9780131103626",
    ]

    /// One to `most` pieces, joined by separators (sometimes none: "Alpha東").
    static func words(_ reader: inout ByteReader, most: Int) -> String {
        var text = reader.pick(pieces)
        for _ in 0..<(reader.byte() % most) {
            let separator = reader.byte() % 8 == 0 ? "" : reader.pick(separators)
            text += separator + reader.pick(pieces)
        }
        return text
    }
}

/// Releases a held index build: the hook of a catalog whose remotes' builds wait for it.
private final class BuildGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false

    func wait() {
        condition.lock()
        while !isOpen { condition.wait() }
        condition.unlock()
    }

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }
}

/// A remote under test, and the gate its index build waits for, if it is held.
private struct RemoteUnderTest {
    let remote: SQLiteBookRemote
    let gate: BuildGate?
    let state: String

    func finish() async {
        gate?.open()
        await remote.finishIndexPreparation()
    }
}

/// One input's run: the catalog, the books it holds as committed, and the remotes searched.
private final class DifferentialRun {
    let path: String
    let catalog: SQLiteCatalog
    /// Another program's connections to the same file, for its commits.
    let otherConnection: SQLiteCatalog
    let otherRemote: SQLiteBookRemote
    var reader: ByteReader
    /// The books of scope "main" as committed: what each write returned.
    var committed: [Int: BookRecord] = [:]
    var remotes: [RemoteUnderTest] = []
    var steps: [String] = []

    init(_ reader: ByteReader, in folder: String) throws {
        self.reader = reader
        path = folder + "/catalog.sqlite"
        catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        otherConnection = try SQLiteCatalog.open(path: path, create: false)
        otherRemote = try otherConnection.remote(account: "editor")
        for _ in 0..<(self.reader.byte() % 61) { try insert(through: catalog) }
        try catalog.addBook(NewBook(title: "Alpha elsewhere", author: "Rome"), scope: "other")
    }

    func run() async throws {
        remotes.append(RemoteUnderTest(remote: try catalog.remote(account: "editor"), gate: nil, state: "first"))
        for _ in 0..<64 where !reader.isDone {
            try await step(reader.byte() % 12)
        }
        // The last word on every state: the empty query and a letter, on each remote.
        for slot in remotes.indices {
            try await search(slot, SearchQuery(text: "", limit: 7), pagedByCursor: true)
            try await search(slot, SearchQuery(text: "a", limit: 5, countLater: true), pagedByCursor: true)
        }
        for remote in remotes { await remote.finish() }
        await otherRemote.finishIndexPreparation()
    }

    private func step(_ kind: Int) async throws {
        let slot = reader.byte() % remotes.count
        switch kind {
        case 0...3:
            let limit = 1 + reader.byte() % 12
            let byOffset = reader.byte()
            let query = SearchQuery(
                text: queryText(), limit: limit, offset: byOffset % 4 == 0 ? byOffset / 4 % 8 : 0,
                countLater: byOffset & 1 != 0)
            try await search(slot, query, pagedByCursor: byOffset & 2 != 0)
        case 4: try await edit(through: remotes[slot].remote)
        case 5: try insert(through: otherConnection)
        case 6: try await edit(through: otherRemote)
        case 7: try await replace(slot, gated: false)
        case 8: try await replace(slot, gated: true)
        case 9:
            steps.append("ready \(slot)")
            remotes[slot].gate?.open()
            _ = try await remotes[slot].remote.searchIndexReport()
        case 10:
            // A held remote's rebuild stays held: the books table answers until it is ready.
            steps.append("distrust \(slot)")
            await remotes[slot].remote.distrustIndex()
        default: damageStoredIndex()
        }
    }

    private func queryText() -> String {
        let book = committed.isEmpty ? nil : committed[committed.keys.sorted()[reader.byte() % committed.count]]
        let others = book.map { [$0.details.series, $0.details.publisher] + $0.details.tags } ?? []
        switch reader.byte() % 10 {
        case 0: return ""
        case 1: return reader.pick(Alphabet.letters)
        case 2: return prefix(of: book?.title ?? "")
        case 3: return prefix(of: book?.author ?? "")
        case 4:
            // Several words of one book, each cut short: "hist ro", "hist disc".
            let words = ([book?.title ?? "", book?.author ?? ""] + others).flatMap { $0.split(separator: " ") }
            return (0..<(1 + reader.byte() % 3)).map { _ in
                words.isEmpty ? "" : prefix(of: String(words[reader.byte() % words.count]))
            }.joined(separator: " ")
        case 5, 6: return prefix(of: others.isEmpty ? "" : reader.pick(others))
        case 7: return reader.pick(Alphabet.isbnQueries)
        default: return Alphabet.words(&reader, most: 3)
        }
    }

    private func prefix(of text: String) -> String {
        String(text.prefix(1 + reader.byte() % max(1, text.count)))
    }

    private func newText() -> (title: String, author: String, details: BookDetails) {
        let title = Alphabet.words(&reader, most: 4)
        let author = reader.byte() % 3 == 0 ? "" : Alphabet.words(&reader, most: 2)
        return (title, author, newDetails())
    }

    /// Details from the same pieces as titles (half the books have none). Commas separate tags,
    /// so a tag has none; text the catalog would refuse (blank once trimmed) is left out.
    private func newDetails() -> BookDetails {
        guard reader.byte() % 2 == 0 else { return .empty }
        func text() -> String { reader.byte() % 2 == 0 ? "" : Alphabet.words(&reader, most: 3) }
        let (series, publisher) = (text(), text())
        let tags = (0..<(reader.byte() % 4)).map { _ in
            Alphabet.words(&reader, most: 2).replacingOccurrences(of: ",", with: " ")
        }
        let isbn = reader.byte() % 3 == 0 ? reader.pick(Alphabet.isbns) : nil
        let typed = BookDetails(
            isbn: isbn, publisher: publisher, series: series, tags: tags, notes: Alphabet.words(&reader, most: 2))
        return (try? typed.validated()) ?? .empty
    }

    private func insert(through connection: SQLiteCatalog) throws {
        let (title, author, details) = newText()
        steps.append("insert \(title.debugDescription) by \(author.debugDescription) with \(details)")
        // A title the catalog refuses (blank once trimmed) commits nothing.
        guard let book = try? connection.addBook(NewBook(title: title, author: author, details: details), scope: "main")
        else { return }
        committed[book.id] = book
    }

    private func edit(through remote: SQLiteBookRemote) async throws {
        guard !committed.isEmpty else { return }
        let book = committed[committed.keys.sorted()[reader.byte() % committed.count]]!
        let (title, author, newDetails) = newText()
        let keepsAuthor = reader.byte() % 2 == 0
        // No details sent keeps the stored ones (and the terms searched in them).
        let details = reader.byte() % 2 == 0 ? nil : newDetails
        steps.append(
            "edit \(book.id) to \(title.debugDescription) by \(keepsAuthor ? "(same)" : author.debugDescription)"
                + " with \(details.map { "\($0)" } ?? "(same details)")")
        let request = SaveRequest(
            id: book.id, title: title, author: keepsAuthor ? nil : author, details: details,
            expectedRevision: book.revision)
        guard let saved = try? await remote.save(request) else { return }
        committed[saved.id] = saved
    }

    /// A new remote in place of the one in `slot`: it loads the stored index (behind by the
    /// changes since, which its overlay holds) or builds one; `gated`, its build is held.
    private func replace(_ slot: Int, gated: Bool) async throws {
        await remotes[slot].finish()
        let gate = gated ? BuildGate() : nil
        // The hook belongs to a catalog, so a held build needs a catalog of its own.
        let source = try gate.map { gate in
            try SQLiteCatalog.open(path: path, create: false, beforeIndexBuild: { gate.wait() })
        }
        let remote = try (source ?? catalog).remote(account: "editor")
        // A stored index would be loaded without a build to hold: the held one is a rebuild.
        if gated { await remote.distrustIndex() }
        let state = gated ? "held build" : "new"
        steps.append("\(state) remote \(slot)")
        let replacement = RemoteUnderTest(remote: remote, gate: gate, state: state)
        if remotes.count < 3 && reader.byte() % 2 == 0 {
            remotes.append(replacement)
        } else {
            remotes[slot] = replacement
        }
    }

    /// Replaces the stored index file with a copy with one byte changed (the remotes that
    /// mapped the old file keep it): the next remote must refuse it and build its own.
    private func damageStoredIndex() {
        let file = SearchIndexSnapshot.path(catalogPath: path, scope: "main")
        guard var bytes = FileManager.default.contents(atPath: file).map(Array.init), !bytes.isEmpty else { return }
        let at = (reader.byte() << 8 | reader.byte()) % bytes.count
        bytes[at] ^= UInt8(1 + reader.byte() % 255)
        steps.append("damage stored index at \(at)")
        let temporary = file + ".damaged"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else { return }
        rename(temporary, file)
    }

    /// Searches `query` on the remote in `slot` and every page after it, each checked.
    private func search(_ slot: Int, _ first: SearchQuery, pagedByCursor: Bool) async throws {
        let terms = SearchTerms(first.text)
        let expected = committed.values.filter(terms.matches).sorted { terms.sortKey($0) < terms.sortKey($1) }
        steps.append("search \(first.text.debugDescription) limit \(first.limit) on \(remotes[slot].state) \(slot)")
        var query = first
        for _ in 0..<64 {
            let page: SearchPage
            do { page = try await remotes[slot].remote.search(query) } catch {
                trap(query, "an answer", "\(error)")
            }
            let wanted = Array(expected.dropFirst(query.offset).prefix(query.limit))
            if page.records != wanted { trap(query, "\(wanted)", "\(page.records)") }
            let total = page.totalCount
            if case let .counting(seen) = total, query.countLater {
                if seen < query.offset + page.records.count || seen > expected.count {
                    trap(query, "counting at most \(expected.count)", "\(total)")
                }
            } else if total != .exact(expected.count) {
                trap(query, "\(TotalCount.exact(expected.count))", "\(total)")
            }
            let shown = query.offset + page.records.count
            guard shown < expected.count, !page.records.isEmpty else { return }
            query = SearchQuery(
                text: query.text, limit: query.limit, offset: shown, after: pagedByCursor ? page.next : nil,
                countLater: query.countLater)
        }
    }

    private func trap(_ query: SearchQuery, _ expected: String, _ answered: String) -> Never {
        fatalError(
            """
            SearchDifferential: \(query) after the steps
            \(steps.joined(separator: "\n"))
            expected: \(expected)
            answered: \(answered)
            """)
    }
}

/// Inputs run so far by this process: the name of each one's scratch folder.
nonisolated(unsafe) private var inputsRun = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSearchDifferential(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    inputsRun += 1
    let folder = scratch + "/\(inputsRun)"
    try? FileManager.default.removeItem(atPath: scratch)
    try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let reader = ByteReader(bytes: Array(UnsafeBufferPointer(start: data, count: size)))
    let done = DispatchSemaphore(value: 0)
    Task {
        do { try await DifferentialRun(reader, in: folder).run() } catch { fatalError("SearchDifferential: \(error)") }
        done.signal()
    }
    done.wait()
    return 0
}
