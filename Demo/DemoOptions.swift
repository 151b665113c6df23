import BookCatalog
import CatalogSimulation

/// The command line of `bookshelf-demo`.
struct DemoOptions: Sendable {
    var scene: SceneKind = .typing
    var script = false
    var seed: UInt64 = 1
    var latency: String?
    var failing: Set<Int> = []
    var typingMilliseconds = 120
    var query = "history of rome"
    var manual = false
    var pageSize = 50

    static let help = """
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
      --script          No terminal: run on virtual time (instant, deterministic), print a
                        transcript of every event and the final state of each pane. An
                        independent oracle checks both panes after every event; the exit
                        status is 1 if the REAL model ever showed a stale result, a stale
                        error, a stale busy state or another session's data (0 otherwise).
                        The last line is a SUMMARY saying whether the naive model was caught.
      --latency SPEC    How long the store takes per request, by request number:
                          400,250,60      milliseconds per request in order, cycling
                          random:50-600   uniform in the range, fixed by --seed
                        Default per scene: typing 600,350,150,40; accounts 60,60,900,900,100;
                        conflict 60,60,60,300,60.
      --seed N          Seed for random latencies (default 1). Same seed, same run.
      --fail LIST       Request numbers that fail with "store unavailable", e.g. 3,7.
      --typing-ms N     Milliseconds between keystrokes when the demo types (default 120).
      --query TEXT      What the typing scene types (default "history of rome").
      --manual          Interactive typing scene: you type the query instead of the demo.
      -h, --help        This text.

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

    enum ParseResult {
        case run(DemoOptions)
        case help
        case failure(String)
    }

    static func parse(_ arguments: [String]) -> ParseResult {
        var options = DemoOptions()
        var sceneGiven = false
        var index = 0
        func value(_ name: String) -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-h", "--help", "help":
                return .help
            case "--script":
                options.script = true
            case "--manual":
                options.manual = true
            case "--seed":
                guard let text = value(argument), let seed = UInt64(text) else {
                    return .failure("--seed needs a whole number from 0")
                }
                options.seed = seed
            case "--latency":
                guard let spec = value(argument) else { return .failure("--latency needs a spec such as 400,250,60 or random:50-600") }
                options.latency = spec
            case "--fail":
                guard let text = value(argument) else { return .failure("--fail needs request numbers such as 3,7") }
                do { options.failing = try LatencySchedule.parseRequestNumbers(text) } catch {
                    return .failure("--fail: \(error)")
                }
            case "--typing-ms":
                guard let text = value(argument), let milliseconds = Int(text), (1...10_000).contains(milliseconds) else {
                    return .failure("--typing-ms needs milliseconds from 1 to 10000")
                }
                options.typingMilliseconds = milliseconds
            case "--query":
                guard let text = value(argument) else { return .failure("--query needs text") }
                guard !text.isEmpty, text.count <= 80, !BookValidation.hasControlCharacters(text) else {
                    return .failure("--query needs 1 to 80 characters without control characters")
                }
                options.query = text
            default:
                if let scene = SceneKind(rawValue: argument), !sceneGiven {
                    options.scene = scene
                    sceneGiven = true
                } else if argument.hasPrefix("-") {
                    return .failure("unknown option \(argument)")
                } else {
                    return .failure("unknown scene \(argument): choose typing, accounts or conflict")
                }
            }
            index += 1
        }
        guard sceneGiven else { return .failure("name a scene: typing, accounts or conflict") }
        return .run(options)
    }

    /// The schedule the options ask for, or why it cannot be made.
    func schedule() throws(LatencySpecError) -> LatencySchedule {
        try LatencySchedule.parse(latency ?? scene.defaultLatency, seed: seed, failing: failing)
    }
}
