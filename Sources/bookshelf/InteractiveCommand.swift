import BookCatalog
import BookshelfModel
import BookshelfUI
import CatalogSimulation
import CommandLineOptions
import Foundation
import PostgresCatalog
import SQLiteCatalog
import TerminalUI

#if canImport(Glibc)
    import Glibc
#endif

/// `bookshelf` with no command: the interactive catalog on the terminal.
///
/// Everything that can fail for a reason the user can fix (an unknown account, a catalog that
/// cannot be read, a bad latency spec, a trace file that cannot be written, no terminal) is
/// checked and reported on standard error BEFORE the screen opens.
enum InteractiveCommand {
    static let account = CatalogOptions.account
    static let latency = Option<String>(
        "latency", value: "SPEC",
        help: "Delay each store request and account connection: 400,250,60 (ms per request, cycling) or random:50-600.")
    static let seed = Option<UInt64>("seed", value: "N", help: "Seed for --latency random:A-B (default 0).") {
        text throws(UsageError) in
        guard let seed = UInt64(text) else {
            throw UsageError("--seed needs a whole number, not \"\(text.printable)\"")
        }
        return seed
    }
    static let trace = Option<String>(
        "trace", value: "FILE", completes: .file,
        help: "Write per-event timings to FILE (ids and durations, never text).")

    static let options: [any OptionDeclaration] = [
        CatalogOptions.db, CatalogReads.option, CatalogReads.standbyWait, account, latency, seed, trace,
    ]

    @Sendable static func run(_ context: CommandContext) async throws -> ExitStatus {
        let setup = try await prepare(context)
        await runOnTerminal(setup)
    }

    /// What the screen needs, all checked before it opens.
    struct Setup: Sendable {
        let store: Store
        let account: Account
        let schedule: LatencySchedule?
        let tracePath: String?
        /// Said once on the first screen: the catalog was just created, with sample books.
        var firstRunNotice: Notice? = nil
    }

    /// The catalog the screen works on, already proven readable by the starting account.
    enum Store: Sendable {
        case sqlite(SQLiteCatalog, path: String)
        /// With the starting account's session already open (it may have needed a password).
        /// `remembered` is its connection string without the password (nil: not recorded).
        case postgres(PostgresAccountConnector, description: String, remembered: String?)
        /// A Calibre library, worked on in place.
        case calibre(CalibreLibraryStore)
    }

    static func prepare(_ context: CommandContext) async throws -> Setup {
        let arguments = context.arguments
        let target = try CatalogTarget.resolve(arguments, environment: context.environment)
        var schedule: LatencySchedule?
        if let spec = arguments.value(latency) {
            let seed = try arguments.value(seed, default: 0)
            do {
                schedule = try LatencySchedule.parse(spec, seed: seed)
            } catch {
                throw UsageError("--latency: \(error.description)")
            }
        } else if arguments.isGiven(seed) {
            throw UsageError("--seed applies only with --latency")
        }
        if schedule != nil, case .postgres = target {
            throw UsageError("--latency applies to SQLite catalogs only (a PostgreSQL server has latency of its own)")
        }
        let creation: CatalogOpener.Creation =
            CatalogLocation.isExplicit(option: arguments.value(CatalogOptions.db), environment: context.environment)
            ? .never : .starterIfMissing
        // Before the catalog opens: the standby reads of the first session are traced too.
        let tracePath = arguments.value(trace)
        if let tracePath {
            guard FileManager.default.createFile(atPath: tracePath, contents: nil) else {
                throw CommandFailure("cannot write the trace file \(tracePath.printable)")
            }
        }
        var firstRunNotice: Notice?
        let (store, account) = try await open(
            CatalogReads.tracing(target, to: tracePath), account: arguments.value(account), creating: creation,
            console: context.console
        ) {
            firstRunNotice = $0
        }
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw CommandFailure("the interactive catalog needs a terminal; in scripts use 'bookshelf search QUERY'")
        }
        return Setup(
            store: store, account: account, schedule: schedule, tracePath: tracePath, firstRunNotice: firstRunNotice)
    }

    /// Opens the catalog as the starting account, so every reason it cannot be used is told
    /// on standard error before the screen opens. On PostgreSQL the starting account is
    /// `--account`, else the connection's own user (the URL's, PGUSER, or the login name).
    /// `asksPassword`: false while the screen is open (the switcher): a PostgreSQL catalog that
    /// wants a password libpq cannot find says so rather than asking on the terminal.
    static func open(
        _ target: CatalogTarget, account name: String?, creating creation: CatalogOpener.Creation,
        console: Console, asksPassword: Bool = true, announce: (Notice) -> Void
    ) async throws -> (Store, Account) {
        switch target {
        case let .sqlite(path):
            var createdWithBooks: Int?
            let catalog = try CatalogOpener.open(path: path, console: console, creating: creation) {
                createdWithBooks = $0
            }
            let account = try CatalogOpener.account(named: name, in: catalog)
            // Reading the account's books proves the catalog is readable before the screen opens.
            let visible: Int
            do {
                visible = try catalog.bookCount(scope: account.scope)
                _ = try catalog.remote(account: account.name)
            } catch {
                throw CommandFailure(
                    "cannot read the catalog \(path.printable): " + TerminalText.sanitized(error.description))
            }
            if let createdWithBooks {
                announce(
                    FirstRunNotice.notice(
                        path: TerminalText.sanitized(displayPath(path)), books: createdWithBooks,
                        visible: visible, scope: TerminalText.sanitized(account.scope),
                        accounts: SampleBooks.starter.accounts.map(\.name)))
            }
            return (.sqlite(catalog, path: path), account)
        case let .calibre(path):
            let store: CalibreLibraryStore
            do {
                store = try CalibreLibraryStore.open(path: path)
                _ = try await store.remote(stateFolder: nil).search(SearchQuery(text: "", limit: 1, offset: 0))
            } catch {
                throw CommandFailure(TerminalText.sanitized(String(describing: error)))
            }
            if let name, name != store.account.name {
                throw CommandFailure(
                    "a Calibre library has one account, its owner \(store.account.name.printable), not \(name.printable)"
                )
            }
            // Said once, on the first screen; a save while calibre runs says it again.
            if let reason = store.permanentlyReadOnly {
                announce(Notice(TerminalText.sanitized(reason)))
            } else if CalibreLibraryStore.calibreIsHoldingItsLock() == true {
                announce(Notice(CalibreLibraryStore.calibreIsRunning))
            }
            return (.calibre(store), store.account)
        case let .postgres(connector):
            let remote =
                asksPassword
                ? try await PostgresSignIn.remote(connector, account: name)
                : try await PostgresSignIn.remoteWithoutAsking(connector)
            do {
                _ = try await remote.search(SearchQuery(text: "", limit: 1, offset: 0))
            } catch {
                throw CommandFailure(PostgresSignIn.message(error))
            }
            return (
                .postgres(
                    PostgresAccountConnector(connector: connector, opened: remote),
                    description: TerminalText.sanitized(RecentCatalogs.shown(connector)),
                    remembered: connector.withoutPassword), remote.account
            )
        }
    }

    /// Opens the screen and runs until the user quits (which ends the process).
    @MainActor
    static func runOnTerminal(_ setup: Setup) async -> Never {
        let terminal: Terminal
        do {
            terminal = try Terminal()
        } catch {
            StandardStream.writeError("bookshelf: cannot use this terminal: \(describe(error))\n")
            exit(ExitStatus.failure.rawValue)
        }
        let environment = ProcessInfo.processInfo.environment
        let composed = compose(setup.store, schedule: setup.schedule)
        let switcher = CatalogSwitcher(
            recent: StateFolder.path(environment: environment).map { RecentCatalogFile(folder: $0) },
            drafts: KeptDraftFiles.directory(environment: environment), schedule: setup.schedule,
            tracePath: setup.tracePath)
        switcher.opened(composed.catalog)
        let model = BookshelfModel(
            connector: composed.connector, account: setup.account.name,
            pageSize: ScreenLayout.pageSize(forRows: terminal.size.rows),
            keeper: switcher.keeper(for: composed.catalog), countsBooks: true, catalog: composed.catalog,
            catalogs: switcher)
        let app = BookshelfApp(model: model, store: composed.info, size: terminal.size)
        if let notice = setup.firstRunNotice { app.announce(notice) }
        // Appending: the store may write lines of its own (standby reads, see CatalogReads).
        let traceFile = setup.tracePath.map { Glibc.open($0, O_WRONLY | O_APPEND | O_CLOEXEC) }.flatMap {
            $0 >= 0 ? FileHandle(fileDescriptor: $0, closeOnDealloc: true) : nil
        }
        if let traceFile {
            let trace = EventTrace { line in _ = StandardStream.write(line + "\n", to: traceFile.fileDescriptor) }
            app.trace = trace
            model.onTrace = { trace.request($0) }
        }
        let session = TerminalSession(terminal: terminal, app: app, beforeExit: { try? traceFile?.close() })
        session.start()
        trapAfterStartIfTesting()
        // The terminal's sources and the model's tasks run on the main queue from here on;
        // quitting exits the process.
        while true { try? await Task.sleep(for: .seconds(3600)) }
    }

    /// Test-only: `BOOKSHELF_TEST_TRAP_AFTER_START=1` makes the app die of a Swift runtime
    /// trap once its first frame is on screen, so a test can check that a trap inside the
    /// process (not only a signal sent to it) gives the terminal back.
    @MainActor
    private static func trapAfterStartIfTesting() {
        guard ProcessInfo.processInfo.environment["BOOKSHELF_TEST_TRAP_AFTER_START"] == "1" else { return }
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(300)) {
            let values: [Int] = []
            _ = values[values.count]  // an index out of range: the runtime traps
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error as? TerminalError {
        case .notATerminal?: "standard input and output must be a terminal"
        case .noUTF8Locale?: "no UTF-8 locale is available (install C.UTF-8 or set LANG to a UTF-8 locale)"
        case let .unsupportedTerminal(name)?: "ncurses does not know the terminal type \"\(name.printable)\" (TERM)"
        case .alreadyActive?: "the terminal is already in use"
        case nil: String(describing: error)
        }
    }

    /// The file's path with every link resolved, so that two ways of naming one catalog keep
    /// its drafts in one place; as given (made absolute) when it cannot be resolved.
    static func realPath(_ path: String) -> String {
        guard let resolved = Glibc.realpath(path, nil) else {
            return path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `~/...` for paths under the home directory: shorter in the header.
    static func displayPath(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        if let home = ProcessInfo.processInfo.environment["HOME"], home.count > 1, absolute.hasPrefix(home + "/") {
            return "~" + absolute.dropFirst(home.count)
        }
        return absolute
    }
}
