import BookCatalog
import BookshelfUI
import CatalogImport
import CommandLineOptions
import TerminalSafeText
import PostgresCatalog
import SQLiteCatalog

#if canImport(Glibc)
    import Glibc
#endif

/// `bookshelf search QUERY`: the catalog's search without the interactive screen, for
/// scripts and quick look-ups (fzf's `--filter`, in spirit). It goes through the same
/// `BookRepository` and store as the app, so it finds exactly what the app would.
enum SearchCommand {
    static let maximumLimit = 100_000

    static let limit = Option.integer(
        "limit", in: 1...maximumLimit, help: "Print at most N books (default 50, at most \(maximumLimit)).")
    static let offset = Option.integer("offset", in: 0...Int(Int32.max), help: "Skip the first N matches (default 0).")
    static let json = Flag(
        "json",
        help:
            "Print JSON Lines: {\"id\":..,\"title\":..,\"author\":..,\"revision\":..} with the other fields as in export."
    )

    static let command = Command(
        name: "search",
        summary: "Print the books matching QUERY, best first.",
        positionals: .words("QUERY"),
        options: [
            limit, offset, json, CatalogOptions.account, CatalogOptions.db, CatalogReads.option,
            CatalogReads.standbyWait,
        ],
        details: """
            Every word of QUERY must begin a word of the title, the author, the series, the
            publisher or a tag, ignoring case and accents ("hist rom" finds "A History of
            Rome", "cafe" finds "Café"); books that match by title come first, then by author,
            then by the other fields. A QUERY that is an ISBN-10 or ISBN-13 (hyphens allowed)
            lists the book with that ISBN first. Notes are never searched. Symbols and
            emoji are words of their own ("🌸", "c++"); punctuation only separates words, so a
            QUERY of only punctuation ("...") has no searchable words and matches nothing. An
            empty QUERY ("") lists every book. QUERY is plain text, never search syntax.

            Output: one book per line, id<TAB>title<TAB>author<TAB>revision; control
            characters in stored text are shown as \u{FFFD}. The number of matches goes to
            standard error. Exit status 0 if anything matched, 1 if nothing did.

            \(CatalogTarget.explanation)
            \(CatalogReads.explanation)
            """,
        run: run)

    @Sendable static func run(_ context: CommandContext) async throws -> ExitStatus {
        let arguments = context.arguments
        let query = SearchQuery(
            text: arguments.positionals.joined(separator: " "),
            limit: try arguments.value(limit, default: 50),
            offset: try arguments.value(offset, default: 0))
        let json = arguments.isSet(json)
        let remote = try await AccountRemote.open(arguments, environment: context.environment, console: context.console)
        let page: SearchPage
        do {
            page = try await BookRepository(remote: remote).search(query)
        } catch {
            throw CommandFailure(PostgresSignIn.oneLine(String(describing: error)))
        }

        for record in page.records {
            context.console.line(json ? jsonLine(record) : tabSeparatedLine(record))
        }
        context.console.note(json ? jsonSummary(page, query: query) : summary(page, query: query))
        if let sqlite = remote as? SQLiteBookRemote {
            await storeIndexAfterAnswering(sqlite, console: context.console)
            // The build reads every row: if it found the catalog damaged, the answer may lack books.
            if let damage = await sqlite.catalogDamage { throw CommandFailure(damage) }
        } else if let calibre = remote as? CalibreBookRemote {
            // The same for a Calibre library, whose index is kept in the user's cache.
            context.console.flush()
            await calibre.finishIndexPreparation()
        }
        return page.total == 0 ? .nothingDone : .success
    }

    /// When the answer came without a current stored index (a first open, or after another
    /// program changed many books), the index is being built in the background: let it finish
    /// and be stored, so the next search starts from it. Standard output is closed first, so a
    /// reader (`| head`) has the whole answer at once.
    private static func storeIndexAfterAnswering(_ remote: SQLiteBookRemote, console: Console) async {
        console.flush()
        let null = open("/dev/null", O_WRONLY)
        if null >= 0 {
            dup2(null, STDOUT_FILENO)
            close(null)
        }
        await remote.finishIndexPreparation()
    }

    static func tabSeparatedLine(_ record: BookRecord) -> String {
        "\(record.id)\t\(TerminalText.sanitized(record.title))\t\(TerminalText.sanitized(record.author))\t\(record.revision)"
    }

    /// The book with every field; empty details are left out, as in `export`.
    static func jsonLine(_ record: BookRecord) -> String {
        "{\"id\":\(record.id),\"title\":\(JSONText.quoted(record.title)),"
            + "\"author\":\(JSONText.quoted(record.author))\(BookExport.jsonMembers(record.details)),"
            + "\"revision\":\(record.revision)}"
    }

    /// The summary for programs: `{"total":10000,"total_kind":"at_least","offset":0,"shown":50}`;
    /// `total_kind` is "exact", "at_least" (the store stopped counting) or "about" (an estimate).
    static func jsonSummary(_ page: SearchPage, query: SearchQuery) -> String {
        let kind =
            switch page.totalCount {
            case .exact: "exact"
            case .atLeast, .counting: "at_least"
            case .about: "about"
            }
        return "{\"total\":\(page.total),\"total_kind\":\"\(kind)\","
            + "\"offset\":\(query.offset),\"shown\":\(page.records.count)}"
    }

    /// "3 matches", or "120 matches (showing 51–100)" when the page is not all of them.
    static func summary(_ page: SearchPage, query: SearchQuery) -> String {
        if SearchTerms(query.text).hasNoSearchableWords {
            return "0 matches: \(SearchTerms.noSearchableWordsExplanation)"
        }
        let number = NumberText.grouped(page.total)
        let count: String
        switch page.totalCount {
        case .exact: count = number
        case .atLeast, .counting: count = number + "+"
        case .about: count = "about " + number
        }
        let matches = page.total == 1 && page.totalCount.isExact ? "1 match" : "\(count) matches"
        guard page.records.count < page.total else { return matches }
        guard !page.records.isEmpty else { return "\(matches) (none from \(query.offset + 1) on)" }
        return "\(matches) (showing \(query.offset + 1)–\(query.offset + page.records.count))"
    }
}
