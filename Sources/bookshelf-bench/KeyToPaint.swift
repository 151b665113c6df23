import BookCatalog
import BookshelfModel
import BookshelfUI
import Foundation
import TerminalUI

/// The interactive app under a typist, for the modes that time keystroke to paint (`keys` on an
/// SQLite catalog, `calibre` on a Calibre library in place): the real `BookshelfModel` and
/// `BookshelfApp` (key handling, the model's search through `BookRepository` and the store's
/// remote, the pure `Screen.render` and the frame diff into a `MemoryBackend`). Each key is timed
/// from the moment it is handed to the app until the frame showing that key's search results has
/// been presented (a page shown before its count, while an index is built, is timed to the page
/// and to the count apart); the next key is typed only once all of it has come, so every key pays
/// for its own search (the worst case: in the real app a fast typist's older searches are
/// superseded and dropped). What answered each page is the one the model's request log names
/// (`RequestTrace.source`, as F4 and `--trace` show it), whatever the store. Beside each key's
/// time, the CPU time the whole process used meanwhile: on a machine shared with other work a
/// key also waits for a core, and the two together tell that wait from the key's own work.
@MainActor
final class TypedApp {
    let model: BookshelfModel
    let app: BookshelfApp
    private let shown: SearchShownWait
    private let size: TerminalSize
    private var backend: MemoryBackend
    private let clock = ContinuousClock()
    /// What answered the page of the last search shown (a count that follows it is answered apart).
    private var lastPage: SearchAnswerSource?

    init(model: BookshelfModel, store: StoreInfo, size: TerminalSize) {
        self.model = model
        self.size = size
        app = BookshelfApp(model: model, store: store, size: size)
        shown = SearchShownWait(app, model: model)
        backend = MemoryBackend(width: size.columns, height: size.rows)
        model.onTrace = { [unowned self] trace in
            guard trace.fate == .published, trace.kind == .search || trace.kind == .refresh else { return }
            lastPage = trace.source
        }
    }

    /// How the app opened: until its first page was painted, until every request of its start
    /// had answered, what it showed and what answered it.
    struct Opening {
        let firstPainted: Duration
        let settled: Duration
        /// The matches of the first page's query (every book), as the screen says them.
        let matches: TotalCount
        let answeredBy: SearchAnswerSource?

        func print() {
            Swift.print(
                "open → first results painted: \(firstPainted.formatted); \(Self.describe(matches)), "
                    + "answered by \(answeredBy?.explanation ?? "nothing")")
            Swift.print("open → every request of the start answered: \(settled.formatted)")
        }

        private static func describe(_ matches: TotalCount) -> String {
            switch matches {
            case let .exact(count): "\(count) books"
            case let .atLeast(count): "at least \(count) books"
            case let .about(count): "about \(count) books"
            case let .counting(count): "at least \(count) books so far"
            }
        }
    }

    /// Starts the app and waits until it shows its first page as `account`.
    func open(as account: String) async throws -> Opening {
        let startup = clock.now
        app.start()
        await firstResults()
        paint()
        let firstPainted = clock.now - startup
        await settle()
        let settled = clock.now - startup
        let state = model.state
        guard state.account == account, state.search.error == nil else {
            throw BenchError("the app did not connect: \(state.connection.error ?? state.search.error ?? "unknown")")
        }
        return Opening(
            firstPainted: firstPainted, settled: settled, matches: state.search.totalCount, answeredBy: lastPage)
    }

    /// Types each of `queries` a character at a time, then clears it with Ctrl-U (also a timed
    /// key), `rounds` times over. `beforeClearing` runs untimed before each Ctrl-U (another
    /// program's saves); `each` prints every key as it is measured.
    func type(_ queries: [String], rounds: Int, each: Bool, beforeClearing: () async throws -> Void = {}) async throws
        -> KeyToPaint
    {
        var measured = KeyToPaint(queries: queries.count, rounds: rounds, size: size)
        for _ in 0..<rounds {
            for query in queries {
                for (offset, character) in query.enumerated() {
                    let start = clock.now
                    let cpuStart = ProcessCPUTime.now
                    app.handle(.key(.character(character)))
                    await pageShown()
                    let paintStart = clock.now
                    paint()
                    let end = clock.now
                    let cpu = ProcessCPUTime.now - cpuStart
                    // A page shown before its count came from the title order or an earlier
                    // scan's first matches; the count follows.
                    let countFollows = if case .counting = model.state.search.totalCount { true } else { false }
                    await settle()
                    if countFollows {
                        paint()
                        measured.counted.record(clock.now - start)
                    }
                    let key = KeyToPaint.Key(
                        typed: String(query.prefix(offset + 1)), isClearing: false, toPage: end - start,
                        paint: end - paintStart, cpu: cpu, answeredBy: lastPage)
                    measured.keys.append(key)
                    if each { key.print() }
                }
                guard model.state.search.query == query, model.state.search.error == nil else {
                    throw BenchError("the app did not search for the typed query")
                }
                try await beforeClearing()
                let start = clock.now
                let cpuStart = ProcessCPUTime.now
                app.handle(.key(.ctrl("u")))
                await settle()
                let paintStart = clock.now
                paint()
                let end = clock.now
                let key = KeyToPaint.Key(
                    typed: "Ctrl-U", isClearing: true, toPage: end - start, paint: end - paintStart,
                    cpu: ProcessCPUTime.now - cpuStart, answeredBy: lastPage)
                measured.keys.append(key)
                if each { key.print() }
            }
        }
        return measured
    }

    private func paint() {
        var canvas = Canvas(width: size.columns, height: size.rows)
        app.render(into: &canvas)
        backend.present(canvas)
    }

    private func settle() async {
        while let request = model.runningRequests.first { await model.finished(request: request) }
    }

    /// Until the first page is on screen: the connection and its search, not what else the
    /// app asked the store meanwhile (answered after it, as the index catches up).
    private func firstResults() async {
        while let request = model.pendingRequests.first(where: { $0.kind == .connect || $0.kind == .search })?
            .request
        {
            await model.finished(request: request)
        }
    }

    /// Until the key's search has answered: its page is on screen, though a count may follow.
    private func pageShown() async { await shown.untilShown() }
}

/// What typing into the app measured (`TypedApp.type`): every key, key to its page on screen.
struct KeyToPaint {
    struct Key {
        /// The query typed so far, or "Ctrl-U".
        let typed: String
        let isClearing: Bool
        /// From the key until its page was on screen.
        let toPage: Duration
        /// Of `toPage`: rendering the screen and presenting the frame.
        let paint: Duration
        /// The CPU time of the whole process (every thread) over `toPage`.
        let cpu: Duration
        let answeredBy: SearchAnswerSource?

        func print() {
            let name = isClearing ? typed : "key \"\(typed)\""
            Swift.print(
                "\(name) \(toPage.formatted) (paint \(paint.formatted), CPU \(cpu.formatted)), answered by \(answeredBy?.explanation ?? "nothing")"
            )
        }
    }

    let queries: Int
    let rounds: Int
    let size: TerminalSize
    var keys: [Key] = []
    /// Keys whose page came before its count: from the key until the count was on screen too.
    var counted = Timings()

    private func timings(_ included: (Key) -> Bool) -> Timings {
        var timings = Timings()
        for key in keys where included(key) { timings.record(key.toPage) }
        return timings
    }

    var all: Timings { timings { _ in true } }

    /// The table of keys by kind, by what answered their pages, and the slowest keys typed.
    func print() {
        let typing = timings { !$0.isClearing }
        let clearing = timings(\.isClearing)
        var paint = Timings()
        var cpu = Timings()
        for key in keys {
            paint.record(key.paint)
            cpu.record(key.cpu)
        }
        Swift.print(
            "\n\(keys.count) keys over \(queries) queries x \(rounds) rounds, screen \(size.columns)x\(size.rows)")
        Swift.print("key kind             p50          p99          max   (key to page on screen)")
        var rows = [
            ("typing a character", typing), ("Ctrl-U (all books)", clearing), ("all keys", all),
            ("  of which paint", paint), ("CPU of the process", cpu),
        ]
        let whileBuilding = timings { $0.answeredBy != .index }
        if !whileBuilding.samples.isEmpty {
            let narrowing: Set<SearchAnswerSource?> = [.earlierScan, .leadingMatches, .orderedMatches]
            let narrowed = timings { narrowing.contains($0.answeredBy) }
            let leading = timings { $0.answeredBy == .leadingMatches }
            let inOrder = timings { $0.answeredBy == .orderedMatches }
            let titleOrder = timings { $0.answeredBy == .titleOrder }
            rows += [
                ("index being built", whileBuilding), ("  narrowed", narrowed), ("    first matches", leading),
                ("    in order", inOrder), ("  title order", titleOrder), ("  → its count", counted),
                ("index ready", timings { $0.answeredBy == .index }),
            ]
            Swift.print(
                "\(whileBuilding.samples.count) keys were answered by other than the search index (while it was built: "
                    + "from the books table or a stale stored index; \(narrowed.samples.count) of them narrowed an earlier scan's matches, "
                    + "\(leading.samples.count) from its first matches alone, \(inOrder.samples.count) from its matches in result order; "
                    + "\(titleOrder.samples.count) showed the page from the title order first; those and the pages from earlier scans are counted "
                    + "afterwards: \"→ its count\" is key to count)")
        }
        for (label, timings) in rows where !timings.samples.isEmpty { Self.row(label, timings) }

        Swift.print("\nkeys by what answered their page  p50          p99          max    keys")
        for source in SearchAnswerSource.allCases.map(Optional.some) + [nil] {
            let answered = timings { $0.answeredBy == source }
            guard !answered.samples.isEmpty else { continue }
            Self.row(source?.rawValue ?? "nothing", answered, width: 32, count: true)
        }

        var worst: [String: Key] = [:]
        for key in keys where !key.isClearing && (worst[key.typed]?.toPage ?? .zero) < key.toPage {
            worst[key.typed] = key
        }
        Swift.print(
            "\nslowest typed prefixes: "
                + worst.values.sorted { $0.toPage > $1.toPage }.prefix(8).map {
                    "\"\($0.typed)\" \(String(format: "%.1f", $0.toPage.milliseconds)) ms "
                        + "(\($0.answeredBy?.rawValue ?? "nothing"), paint \(String(format: "%.1f", $0.paint.milliseconds)), "
                        + "CPU \(String(format: "%.1f", $0.cpu.milliseconds)))"
                }.joined(separator: ", "))
    }

    private static func row(_ label: String, _ timings: Timings, width: Int = 18, count: Bool = false) {
        Swift.print(
            "\(label.padding(toLength: width, withPad: " ", startingAt: 0)) \(timings.p50.formatted)  \(timings.p99.formatted)  \(timings.percentile(1).formatted)"
                + (count ? "    \(timings.samples.count)" : ""))
    }
}

/// The CPU time this process has used, all its threads together (`CLOCK_PROCESS_CPUTIME_ID`).
enum ProcessCPUTime {
    static var now: Duration {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}
