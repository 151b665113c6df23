import BookCatalog
import CommandLineOptions
import PostgresCatalog
import TerminalSafeText

/// `bookshelf sample --count N`: fills a catalog with generated books, the same ones for the
/// same seed, for demos and benchmarks.
enum SampleCommand {
    static let maximumCount = 10_000_000

    static let count = Option.integer(
        "count", in: 1...maximumCount,
        help: "How many books to add (required, 1 to \(NumberText.grouped(maximumCount))).")
    static let seed = Option<UInt64>("seed", value: "S", help: "Generator seed, a whole number (default 1).") {
        text throws(UsageError) in
        guard let seed = UInt64(text) else {
            throw UsageError("--seed needs a whole number from 0 to \(UInt64.max), not \"\(text.printable)\"")
        }
        return seed
    }

    static let command = Command(
        name: "sample",
        summary: "Add N generated books (the same ones for the same seed).",
        positionals: .none,
        options: [count, seed, CatalogOptions.scope, CatalogOptions.db],
        details: """
            The books have varied titles and authors: accents, Japanese, Chinese and Korean
            text, emoji, very long titles, titles sharing their first words. All are added in
            one transaction, made one at a time as they are stored (ten million fit in little
            memory). Progress goes to standard error: a bar redrawn in place on a terminal,
            a line at every tenth otherwise.

            \(CatalogTarget.explanation)
            """,
        run: run)

    @Sendable static func run(_ context: CommandContext) async throws -> ExitStatus {
        let arguments = context.arguments
        guard let count = try arguments.value(count) else { throw UsageError("--count N is required") }
        let seed = try arguments.value(seed, default: 1)
        let scope = arguments.value(CatalogOptions.scope) ?? "main"
        guard !scope.isEmpty, !BookValidation.hasControlCharacters(scope) else {
            throw UsageError("--scope needs a name without control characters")
        }
        let target = try CatalogTarget.resolve(
            option: arguments.value(CatalogOptions.db), environment: context.environment)
        // The generator makes each book as it is stored: ten million are never all in memory.
        let books = SampleBooks(count: count, seed: seed)
        guard case let .sqlite(path) = target else {
            if case .calibre = target {
                throw CommandFailure(
                    "books are added to a Calibre library in calibre; Bookshelf edits the books it has")
            }
            guard case let .postgres(connector) = target else { return .failure }
            let setup = try await PostgresSignIn.administrator(connector)
            let progress = ProgressDisplay.standardError(label: "Adding sample books", total: count)
            let added: Int
            do {
                added = try await setup.importBooks(streaming: books, scope: scope) { progress.update($0) }
            } catch {
                progress.finish()
                throw CommandFailure("nothing added: " + PostgresSignIn.message(error))
            }
            progress.finish()
            context.console.line(
                "Added \(NumberText.grouped(added)) sample books (seed \(seed)) to scope \(scope.printable).")
            return .success
        }

        let catalog = try CatalogOpener.open(path: path, console: context.console, creating: .starterIfMissing)
        let progress = ProgressDisplay.standardError(label: "Adding sample books", total: count)
        let added: Int
        do {
            added = try catalog.insertBooks(books, scope: scope) { progress.update($0) }
        } catch {
            progress.finish()
            throw CommandFailure("nothing added: " + TerminalText.sanitized(error.description))
        }
        progress.finish()
        // Derived data: if it cannot be stored now, the next program builds it instead.
        _ = try? await catalog.prepareSearchIndex(scope: scope)
        context.console.line(
            "Added \(NumberText.grouped(added)) sample books (seed \(seed)) to scope \(scope.printable).")
        return .success
    }

}
