import BookCatalog
import CatalogSimulation
import CommandLineOptions

/// The command line of `bookshelf-demo`.
struct DemoOptions: Sendable {
    var scene: SceneKind = .typing
    var script = false
    var seed: UInt64 = 1
    var latency: String?
    var failing: Set<Int> = []
    var typingMilliseconds = 120
    var storePauseMilliseconds = 0
    var query = "history of rome"
    var manual = false
    var pageSize = 50

    static var help: String {
        """
        bookshelf-demo: why a search-as-you-type app needs a publication gate.

        USAGE
          bookshelf-demo typing|accounts|conflict [options]

        Two panes run the same scene over the same scripted store (each over its own copy of
        an in-memory sample catalog). Left: a naive model, the WRONG way: it publishes whatever
        answer arrives and keeps one shared busy flag. Right: the real BookshelfModel, which
        tags every request with (session, request) and publishes only the newest one of the
        current session. A request panel lists every request with its latency and fate.

        SCENES
          typing    The query is typed one key at a time; the store answers older searches
                    after newer ones. The naive pane ends on the wrong rows; the real one never does.
          accounts  A slow search and a slow save are pending for alice when the user switches
                    to carol. The real pane lets alice's save finish first (published: her edit
                    is kept), drops the slow search (dropped-old-session), and shows carol
                    nothing of alice's. The naive pane shows carol alice's rows.
          conflict  While alice edits a book another writer saves it. The real pane's save
                    fails(conflict) and it shows the conflict banner (base, theirs, yours),
                    holding on it until Space (or 8 s); reload then takes theirs. The naive
                    pane saves again over the other writer's edit without a word.

        WHAT BECAME OF EACH ANSWER (the request panel and the --script table)
          applied           the naive model put the answer on screen, whatever it was
          published         BookshelfModel showed it: the newest request of the current session
          dropped-stale     BookshelfModel discarded it: a newer request had taken over
          dropped-old-session  discarded: the account changed before it answered
          failed(conflict)  the save met a newer revision; the conflict banner is shown
          , WRONG           the oracle found the screen wrong right after that answer
          Each pane numbers the requests that reach its own store, so the same number can
          be a different action on the two sides; --script says which scene step sent each.

        OPTIONS
        \(HelpText.optionList(declarations.map(\.spec)))
        KEYS (interactive mode, ncurses)
          q, Esc, Ctrl-Q    quit (with --manual, q is a letter: use Esc or Ctrl-Q)
          r, Ctrl-R         restart the scene (with --manual, use Ctrl-R)
          Space, Enter      conflict scene: stop holding on the conflict banner and reload theirs
          typing with --manual: printable keys and Backspace edit the query of both panes

        EXAMPLES
          bookshelf-demo typing
          bookshelf-demo typing --script --latency random:50-600 --seed 7
          bookshelf-demo accounts --script
          bookshelf-demo conflict
        """
    }

    enum ParseResult {
        case run(DemoOptions)
        case help
        case failure(String)
    }

    static let scriptFlag = Flag(
        "script",
        help: """
            No terminal: run on virtual time (instant, deterministic), print a
            transcript of every event and the final state of each pane. An
            independent oracle checks both panes after every event; the exit
            status is 1 if the REAL model ever showed a stale result, a stale
            error, a stale busy state or another session's data (0 otherwise).
            The last line is a SUMMARY saying whether the naive model was caught.
            """)
    static let latencyOption = Option<String>(
        "latency", value: "SPEC",
        help: """
            How long the store takes per request, by request number:
              400,250,60      milliseconds per request in order, cycling
              random:50-600   uniform in the range, fixed by --seed
            Default per scene: typing 600,350,150,40; accounts 60,60,900,900,100;
            conflict 60,60,60,300,60.
            """)
    static let seedOption = Option<UInt64>(
        "seed", value: "N", help: "Seed for random latencies (default 1). Same seed, same run."
    ) {
        text throws(UsageError) in
        guard let seed = UInt64(text) else { throw UsageError("--seed needs a whole number from 0") }
        return seed
    }
    static let failOption = Option<Set<Int>>(
        "fail", value: "LIST", help: "Request numbers that fail with \"store unavailable\", e.g. 3,7."
    ) {
        text throws(UsageError) in
        do { return try LatencySchedule.parseRequestNumbers(text) } catch { throw UsageError("--fail: \(error)") }
    }
    static let typingOption = Option<Int>(
        "typing-ms", value: "N", help: "Milliseconds between keystrokes when the demo types (default 120)."
    ) {
        text throws(UsageError) in
        guard let milliseconds = Int(text), (1...10_000).contains(milliseconds) else {
            throw UsageError("--typing-ms needs milliseconds from 1 to 10000")
        }
        return milliseconds
    }
    static let storePauseOption = Option<Int>(
        "store-pause-ms", value: "N",
        help: """
            With --script: the store pauses N wall-clock ms before each read, as
            on a busy machine. The transcript does not change (default 0).
            """
    ) {
        text throws(UsageError) in
        guard let milliseconds = Int(text), (0...1_000).contains(milliseconds) else {
            throw UsageError("--store-pause-ms needs milliseconds from 0 to 1000")
        }
        return milliseconds
    }
    static let queryOption = Option<String>(
        "query", value: "TEXT", help: "What the typing scene types (default \"history of rome\")."
    ) {
        text throws(UsageError) in
        guard !text.isEmpty, text.count <= 80, !BookValidation.hasControlCharacters(text) else {
            throw UsageError("--query needs 1 to 80 characters without control characters")
        }
        return text
    }
    static let manualFlag = Flag("manual", help: "Interactive typing scene: you type the query instead of the demo.")
    static let helpFlag = Flag("help", short: "h", help: "This text.")

    static let declarations: [any OptionDeclaration] = [
        scriptFlag, latencyOption, seedOption, failOption, typingOption, storePauseOption, queryOption, manualFlag,
        helpFlag,
    ]

    static func parse(_ arguments: [String]) -> ParseResult {
        do {
            let (parsed, _) = try ArgumentParser(options: declarations).parse(arguments)
            if parsed.isSet(helpFlag) || parsed.positionals.contains("help") { return .help }
            return .run(try options(from: parsed))
        } catch {
            return .failure(error.message)
        }
    }

    private static func options(from parsed: ParsedArguments) throws(UsageError) -> DemoOptions {
        let scenes = "typing, accounts or conflict"
        guard let name = parsed.positionals.first else { throw UsageError("name a scene: \(scenes)") }
        guard let scene = SceneKind(rawValue: name) else {
            throw UsageError("unknown scene \(name.printable): choose \(scenes)")
        }
        if parsed.positionals.count > 1 {
            throw UsageError("unknown scene \(parsed.positionals[1].printable): one scene at a time")
        }
        var options = DemoOptions()
        options.scene = scene
        options.script = parsed.isSet(scriptFlag)
        options.manual = parsed.isSet(manualFlag)
        options.seed = try parsed.value(seedOption, default: options.seed)
        options.latency = parsed.value(latencyOption)
        options.failing = try parsed.value(failOption, default: options.failing)
        options.typingMilliseconds = try parsed.value(typingOption, default: options.typingMilliseconds)
        options.storePauseMilliseconds = try parsed.value(storePauseOption, default: options.storePauseMilliseconds)
        if options.storePauseMilliseconds > 0, !options.script {
            throw UsageError("--store-pause-ms goes with --script")
        }
        options.query = try parsed.value(queryOption, default: options.query)
        return options
    }

    /// The schedule the options ask for, or why it cannot be made.
    func schedule() throws(LatencySpecError) -> LatencySchedule {
        try LatencySchedule.parse(latency ?? scene.defaultLatency, seed: seed, failing: failing)
    }
}
