import CommandLineOptions
import SQLiteCatalog

/// `bookshelf check`: whether an SQLite catalog file is intact, by SQLite's own integrity
/// check. For a catalog that a search called damaged, or before trusting a copy.
enum CheckCommand {
    static let command = Command(
        name: "check",
        summary: "Check that the SQLite catalog file is intact (PRAGMA integrity_check).",
        positionals: .none,
        options: [CatalogOptions.db],
        details: """
            Reads every page of the catalog and every index against its table, without changing
            the file (it is opened read-only, so a read-only catalog can be checked too). Prints
            "ok" for an intact catalog, or what SQLite found (at most \(CatalogIntegrity.problemLimit)
            lines) and how to recover: restore the catalog from an export (`bookshelf import`)
            or a backup. The search index beside the catalog is derived data and is not checked;
            a damaged one is rebuilt by itself.

            Exit status: 0 the catalog is intact; 2 usage error; 3 it is damaged, or could not
            be read. PostgreSQL checks its own data; the command is for SQLite catalogs.

            \(CatalogTarget.explanation)
            """,
        run: run)

    @Sendable static func run(_ context: CommandContext) async throws -> ExitStatus {
        let path: String
        switch try CatalogTarget.resolve(
            option: context.arguments.value(CatalogOptions.db), environment: context.environment)
        {
        case let .sqlite(catalog): path = catalog
        case let .calibre(library):
            // The library's metadata.db, checked as a catalog is (calibre's check_library looks at its folders).
            do {
                path = try CalibreLibraryStore.open(path: library).file
            } catch {
                throw CommandFailure(TerminalText.sanitized(error.description))
            }
        case .postgres:
            throw CommandFailure("check is for SQLite catalogs; PostgreSQL checks its own data (see amcheck)")
        }
        let report: CatalogIntegrity.Report
        do {
            report = try CatalogIntegrity.check(path: path)
        } catch {
            throw CommandFailure(TerminalText.sanitized(error.description))
        }
        guard !report.isHealthy else {
            context.console.line("ok: \(TerminalText.sanitized(path)) is intact")
            return .success
        }
        for problem in report.problems { context.console.line(TerminalText.sanitized(problem)) }
        throw CommandFailure(
            "the catalog \(TerminalText.sanitized(path)) is damaged (\(report.problems.count) problems above, "
                + "from PRAGMA integrity_check); restore it from an export (bookshelf import) or a backup")
    }
}
