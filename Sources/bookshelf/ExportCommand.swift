import BookCatalog
import CatalogImport
import CommandLineOptions
import Foundation
import SQLiteCatalog
import TerminalSafeText

/// `bookshelf export`: the books an account sees (or those matching a query), in a format
/// `bookshelf import` reads back unchanged. Written page by page as read, so a million books
/// never sit in memory at once. Progress goes to standard error.
enum ExportCommand {
    static let pageSize = 5_000

    static let format = Option<String>(
        "format", value: "F", completes: .choices(formatNames),
        help: "csv (default), jsonl, or for a paper's references csl-json or bibtex.")

    static let formatNames = BookExportFormat.allCases.map(\.rawValue) + CitationFormat.allCases.map(\.rawValue)
    static let query = Option<String>(
        "query", value: "Q", help: "Only the books matching Q, as 'bookshelf search Q' finds them.")
    static let scope = Option<String>("scope", value: "S", help: "The books of scope S (default: the account's scope).")
    static let rawCells = Flag(
        "raw-cells",
        help: "CSV: write cells that start with = + - @ as they are, for programs that are not spreadsheets.")

    static let command = Command(
        name: "export",
        summary: "Write the books (or those matching --query) as CSV, JSON Lines, CSL-JSON or BibTeX.",
        positionals: .none,
        options: [
            format, rawCells, query, scope, CatalogOptions.account, CatalogOptions.db, CatalogReads.option,
            CatalogReads.standbyWait,
        ],
        details: """
            Output: CSV with the header
            title,author,isbn,year,publisher,series,series_index,tags,notes and every field
            quoted (tags as "a, b"; notes keep their line breaks inside the quotes), or JSON
            Lines {"title":..,"author":..,"isbn":..,"year":..,"publisher":..,"series":..,
            "series_index":..,"tags":[..],"notes":..} with empty fields left out; 'bookshelf
            import' reads either back unchanged, and exporting the import gives the same bytes. Books come
            in search order (title order without --query). Ids and revisions are not exported:
            an import makes new books.

            --format csl-json writes one CSL-JSON array (an item a line, type "book") and
            --format bibtex a @book entry per book, for Zotero, pandoc, BibTeX or biblatex. Each
            book's key (its CSL id, its BibTeX key) is the family name, the year and the title's
            first word, and the catalog's id: herbert1965dune-42. Authors "A B, C D" are two
            people, "Family, Given" or a name that does not split back exactly is kept whole
            (literal, or in braces). 'bookshelf import --from csl-json' or '--from bibtex' reads
            either back; what each format cannot hold is listed in docs/import.md.

            A spreadsheet runs a cell that starts with =, +, -, @, a tab or a carriage return as a
            formula (=HYPERLINK(..), say), so CSV writes such a cell with an apostrophe in front
            ('=HYPERLINK(..)), which a spreadsheet shows as text, as OWASP advises against CSV
            injection (a cell that already starts with apostrophes before one of them gets one
            more; years are numbers and stay as they are). 'bookshelf import' takes the apostrophe
            off again, so the round trip stays exact. --raw-cells writes every cell as it is.

            CSV written to a terminal shows stored control characters
            as 'bookshelf search' does (to a file or a pipe it is exact). Text that is not valid
            UTF-8 (stored by another program) is written byte for byte in CSV and as \\udcXX
            escapes (one per bad byte) in JSON Lines. Books whose text a plain import would
            refuse are counted on standard error with their ids; 'bookshelf import --restore'
            takes them back exactly. Progress goes to standard error (a bar on a terminal, a line
            at every tenth otherwise), never into the data; a query with more matches than the
            store counts (10,000) shows none.

            On SQLite --scope picks the first editor (by name) of that scope, else its first
            account, unless --account names one; on PostgreSQL the signed-in account's scope
            must be S.

            Exit status: 0 success (also when nothing matched); 2 usage error; 3 the catalog could
            not be used, or no account sees the scope.

            \(CatalogTarget.explanation)
            \(CatalogReads.explanation)
            """,
        run: run)

    @Sendable static func run(_ context: CommandContext) async throws -> ExitStatus {
        let arguments = context.arguments
        let formatName = arguments.value(format) ?? BookExportFormat.csv.rawValue
        let citation = CitationFormat(rawValue: formatName)
        guard let format = BookExportFormat(rawValue: formatName) ?? (citation != nil ? .jsonl : nil) else {
            throw UsageError(
                "--format must be one of \(formatNames.joined(separator: ", ")), not \"\(formatName.printable)\"")
        }
        let cells: CSVCells = arguments.isSet(rawCells) ? .raw : .neutralised
        if cells == .raw, format != .csv || citation != nil {
            throw UsageError("--raw-cells applies to CSV only; no other format is run by a spreadsheet")
        }
        let remote = try await AccountRemote.open(
            arguments, environment: context.environment, console: context.console, scope: arguments.value(scope))
        let console = context.console
        if let citation {
            if let opening = CitationExport.opening(citation) { console.line(opening) }
        } else if let header = BookExport.header(format) {
            console.line(header)
        }
        // CSL-JSON separates its items: each is written once the next one (or the end) is known.
        var pendingItem: String?
        // Progress goes to standard error, never into the data on standard output.
        var writing: ProgressDisplay?
        defer { writing?.finish() }
        var written = 0
        var refused: [Int] = []
        defer { report(refused, console: console) }
        let toTerminal = isatty(STDOUT_FILENO) == 1
        // Every read but this one shows a byte that is not UTF-8 as U+FFFD: SQLite can hold them.
        let exactRemote = remote as? SQLiteBookRemote
        var query = SearchQuery(text: arguments.value(query) ?? "", limit: pageSize, offset: 0)
        // The remote, not a BookRepository: a repository keeps every row it reads for its
        // session, and an export reads each book once.
        while true {
            let page: SearchPage
            do {
                page = try await remote.search(query)
            } catch {
                throw CommandFailure(PostgresSignIn.oneLine(String(describing: error)))
            }
            let stored: [Int: StoredBytes]
            do {
                stored = try await storedBytes(of: page.records, from: exactRemote)
            } catch {
                throw CommandFailure(PostgresSignIn.oneLine(String(describing: error)))
            }
            for record in page.records {
                if let citation {
                    if BookImport.rejection(title: record.title, author: record.author) != nil {
                        refused.append(record.id)
                    }
                    let entry = CitationExport.entry(
                        id: record.id, title: record.title, author: record.author, details: record.details,
                        format: citation)
                    if let item = pendingItem { console.line(item + CitationExport.separator(citation)) }
                    pendingItem = nil
                    if citation == .cslJSON {
                        pendingItem = entry
                    } else {
                        // BibTeX has no escape for a control character: on a terminal it is shown
                        // as search shows it (to a file or a pipe the entry is exact).
                        for line in entry.split(separator: "\n", omittingEmptySubsequences: false) {
                            console.line(toTerminal ? TerminalText.sanitized(String(line)) : String(line))
                        }
                        console.line("")
                    }
                    continue
                }
                let bytes = stored[record.id]
                if bytes != nil || BookImport.rejection(title: record.title, author: record.author) != nil {
                    refused.append(record.id)
                }
                if let bytes, !(toTerminal && format == .csv) {
                    console.line(
                        bytes: BookExport.line(
                            storedTitle: bytes.title, storedAuthor: bytes.author, details: record.details,
                            format: format, cells: cells))
                } else {
                    console.line(line(for: record, format: format, cells: cells, toTerminal: toTerminal))
                }
            }
            written += page.records.count
            if query.offset == 0 {
                writing = await total(of: page, everyBook: query.text.isEmpty, countedBy: remote)
                    .map { ProgressDisplay.standardError(label: "Exporting books", total: $0) }
            }
            writing?.update(written)
            guard page.records.count == query.limit, written < page.total || !page.totalCount.isExact else { break }
            query = SearchQuery(text: query.text, limit: pageSize, offset: written, after: page.next)
        }
        if let citation {
            if let item = pendingItem { console.line(item) }
            if let closing = CitationExport.closing(citation) { console.line(closing) }
        }
        return .success
    }

    /// One book's line. CSV to a terminal draws unsafe scalars as `search` does, so stored
    /// escape sequences cannot act on it; anywhere else the line is exact. JSON Lines escapes
    /// them either way.
    static func line(for record: BookRecord, format: BookExportFormat, cells: CSVCells, toTerminal: Bool) -> String {
        guard toTerminal, format == .csv else {
            return BookExport.line(
                title: record.title, author: record.author, details: record.details, format: format, cells: cells)
        }
        // Notes keep their line breaks: CSV quotes them, and a terminal only moves to a new line.
        let details = record.details
        let shown = BookDetails(
            isbn: details.isbn, year: details.year, publisher: TerminalText.sanitized(details.publisher),
            series: TerminalText.sanitized(details.series), seriesIndex: details.seriesIndex,
            tags: details.tags.map(TerminalText.sanitized),
            notes: details.notes.split(separator: "\n", omittingEmptySubsequences: false)
                .map { TerminalText.sanitized(String($0)) }.joined(separator: "\n"))
        return BookExport.line(
            title: TerminalText.sanitized(record.title), author: TerminalText.sanitized(record.author),
            details: shown, format: format, cells: cells)
    }

    /// The stored bytes of the books on a page whose text is not valid UTF-8. Decoding puts a
    /// U+FFFD in place of every bad byte, so only a record showing one can hide bytes; those
    /// are read again as bytes. PostgreSQL holds only valid UTF-8.
    private static func storedBytes(of records: [BookRecord], from remote: SQLiteBookRemote?) async throws -> [Int:
        StoredBytes]
    {
        guard let remote else { return [:] }
        let suspects = records.filter {
            $0.title.unicodeScalars.contains("\u{FFFD}") || $0.author.unicodeScalars.contains("\u{FFFD}")
        }
        guard !suspects.isEmpty else { return [:] }
        return try await remote.storedBytes(of: suspects.map(\.id))
    }

    /// Says which books hold text `bookshelf import` would refuse (at most 20 ids named).
    private static func report(_ ids: [Int], console: Console) {
        guard !ids.isEmpty else { return }
        let named = ids.sorted().prefix(20).map(String.init).joined(separator: ", ")
        let more = ids.count > 20 ? ", and \(ids.count - 20) more" : ""
        let count = ids.count
        console.note(
            "bookshelf export: note: \(NumberText.grouped(count)) book\(count == 1 ? "" : "s") hold\(count == 1 ? "s" : "") text a plain import would refuse (ids \(named)\(more))"
        )
    }

    /// How many books the export will write, for an honest bar: the first page's total when
    /// the store counted it, else the account's books when every one is exported. A query
    /// past the count limit has only a lower bound or an estimate, so no bar.
    private static func total(of firstPage: SearchPage, everyBook: Bool, countedBy remote: any SearchableBookRemote)
        async -> Int?
    {
        if firstPage.totalCount.isExact { return firstPage.total }
        guard everyBook else { return nil }
        // Without a count the books are still exported, only without a bar.
        return try? await remote.bookCount()
    }
}
