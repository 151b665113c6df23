import BookCatalog
import BookshelfModel
import CatalogSimulation
import Foundation
import TerminalUI

/// The scene on a real terminal, in real time: the same panes as `--script`, a wall-clock
/// store, and a screen redrawn on every change and on a short ticker (for the spinner and
/// the running request times).
@MainActor
enum InteractiveDemo {
    static func run(options: DemoOptions, schedule: LatencySchedule) async {
        let terminal: Terminal
        do {
            terminal = try Terminal()
        } catch {
            try? FileHandle.standardError.write(
                contentsOf: Data("bookshelf-demo: cannot use this terminal (\(error)); try --script\n".utf8))
            exit(2)
        }
        // The same scene and latencies on virtual time, for the count the screen compares with.
        var reference: ScriptRun.Counts?
        if !(options.manual && options.scene == .typing) {
            let run = ScriptRun(options: options, schedule: schedule)
            _ = await run.run()
            reference = run.counts
        }
        let session = InteractiveSession(
            options: options, schedule: schedule, reference: reference,
            redraw: { terminal.setNeedsDraw() })
        terminal.render = { canvas in session.draw(&canvas) }
        terminal.onEvent = { event in
            if session.handle(event) == .quit { terminal.quit(status: 0) }
        }
        terminal.setTicker(every: .milliseconds(50))
        terminal.start()
        // The terminal's sources drive everything from here; this task only keeps main alive.
        while true { try? await Task.sleep(for: .seconds(3600)) }
    }
}

@MainActor
final class InteractiveSession {
    enum Reply { case keepGoing, quit }

    let options: DemoOptions
    let schedule: LatencySchedule
    let scene: Scene
    /// The violations `--script` counts for the same scene and latencies (nil when the user types).
    let reference: ScriptRun.Counts?
    private let redraw: () -> Void
    /// The conflict scene holds on the conflict banner until a key (or `holdSeconds`) before reloading.
    static let holdSeconds = 8
    private var holdStarted: ContinuousClock.Instant?
    private var holdReleased = false
    private var naive: NaivePane
    private var real: RealPane
    private var judges: (naive: InteractiveJudge, real: InteractiveJudge)
    private let world = DemoWorld()
    private var started = ContinuousClock.now
    /// When the scene ended (its last step done and every request answered): the clock stops.
    private var ended: ContinuousClock.Instant?
    private var nextStep = 0
    private var performing = false
    /// Actions waiting for the panes, with their scene step (1 is the start; with --manual,
    /// each key is the next step).
    private var queued: [(action: DemoAction, step: Int)] = []
    private var stepsQueued = 0
    private var typed = ""
    private var ticks = 0

    init(
        options: DemoOptions, schedule: LatencySchedule, reference: ScriptRun.Counts? = nil,
        redraw: @escaping () -> Void
    ) {
        self.options = options
        self.reference = reference
        self.schedule = schedule
        self.redraw = redraw
        var steps = Scene.make(options.scene, query: options.query, typingMilliseconds: options.typingMilliseconds)
        if options.manual && options.scene == .typing {
            steps = Scene(kind: .typing, steps: [steps.steps[0]])  // just start; the user types
        }
        scene = steps
        (naive, real) = Self.makePanes(options: options, schedule: schedule)
        judges = Self.makeJudges(options: options)
        restart()
    }

    private static func makeJudges(options: DemoOptions) -> (naive: InteractiveJudge, real: InteractiveJudge) {
        (
            InteractiveJudge(world: DemoWorld(), pageSize: options.pageSize),
            InteractiveJudge(world: DemoWorld(), pageSize: options.pageSize)
        )
    }

    private static func makePanes(options: DemoOptions, schedule: LatencySchedule) -> (NaivePane, RealPane) {
        let world = DemoWorld()
        return (
            NaivePane(world: world, schedule: schedule, clock: nil, pageSize: options.pageSize),
            RealPane(world: world, schedule: schedule, clock: nil, pageSize: options.pageSize)
        )
    }

    private func restart() {
        (naive, real) = Self.makePanes(options: options, schedule: schedule)
        judges = Self.makeJudges(options: options)
        naive.model.onChange = { [weak self] in self?.paneChanged() }
        real.model.onChange = { [weak self] in self?.paneChanged() }
        started = .now
        ended = nil
        nextStep = 0
        typed = ""
        performing = false
        queued = []
        stepsQueued = 0
        holdStarted = nil
        holdReleased = false
        advance()
    }

    private var elapsedMilliseconds: Int {
        let (seconds, attoseconds) = ((ended ?? ContinuousClock.now) - started).components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    /// A model published something (or dropped an answer): judge it, then redraw.
    private func paneChanged() {
        judges.naive.judgeAnswers(of: naive)
        judges.real.judgeAnswers(of: real)
        noteEnd()
        redraw()
    }

    private func noteEnd() {
        guard ended == nil, !typesByHand, nextStep >= scene.steps.count, !performing, idle else { return }
        ended = .now
        let (kind, naive, real, judges) = (scene.kind, self.naive, self.real, self.judges)
        Task { @MainActor in
            await judges.naive.finish(kind, pane: naive)
            await judges.real.finish(kind, pane: real)
            self.redraw()
        }
    }

    /// Nothing in flight, and nothing about to be: an answer the model has not taken yet may
    /// still start a request (a conflict fetching theirs), so both panes must be settled too.
    private var idle: Bool {
        naive.script.calls.allSatisfy { $0.outcome != .pending }
            && real.script.calls.allSatisfy { $0.outcome != .pending }
            && naive.isSettled && real.isSettled
    }

    /// Performs the scene steps that are due, one at a time, on both panes.
    private func advance() {
        guard !performing, nextStep < scene.steps.count else { return }
        let step = scene.steps[nextStep]
        guard step.at <= elapsedMilliseconds, !step.afterIdle || idle else { return }
        if step.action == .reloadTheirs, !holdReleased {
            // Let the user read the conflict banner before theirs is taken.
            let start = holdStarted ?? .now
            holdStarted = start
            guard ContinuousClock.now - start >= .seconds(Self.holdSeconds) else { return }
            holdReleased = true
        }
        nextStep += 1
        perform(step.action)
    }

    /// Queues `action` for both panes; actions run one after another, in order, so keys
    /// typed faster than a pane takes them are never lost or reordered.
    private func perform(_ action: DemoAction) {
        stepsQueued += 1
        queued.append((action, stepsQueued))
        guard !performing else { return }
        performing = true
        let generation = (naive, real)
        let judges = self.judges
        Task { @MainActor in
            while generation.0 === self.naive, !self.queued.isEmpty {
                let (next, step) = self.queued.removeFirst()
                let naiveKnown = generation.0.script.calls.count
                await generation.0.perform(next)
                await judges.naive.noteAction(next, step: step, callsFrom: naiveKnown, pane: generation.0)
                let realKnown = generation.1.script.calls.count
                await generation.1.perform(next)
                await judges.real.noteAction(next, step: step, callsFrom: realKnown, pane: generation.1)
                self.redraw()
            }
            guard generation.0 === self.naive else { return }  // restarted meanwhile
            self.performing = false
            self.advance()
        }
    }

    // MARK: Keys

    func handle(_ event: TerminalEvent) -> Reply {
        switch event {
        case .tick:
            ticks += 1
            advance()
            judges.naive.judgeAnswers(of: naive)
            judges.real.judgeAnswers(of: real)
            noteEnd()
        case .resize:
            break
        case let .key(key):
            return handle(key)
        }
        return .keepGoing
    }

    private var typesByHand: Bool { options.manual && options.scene == .typing }

    private func handle(_ key: Key) -> Reply {
        switch key {
        case .escape, .ctrl("q"), .ctrl("c"):
            return .quit
        case .ctrl("r"):
            restart()
        case .character(" "), .enter:
            if holdStarted != nil, !holdReleased {
                holdReleased = true
                advance()
            }
        case .character("q") where !typesByHand:
            return .quit
        case .character("r") where !typesByHand:
            restart()
        case let .character(character) where typesByHand:
            typed.append(character)
            perform(.type(typed))
        case .backspace where typesByHand && !typed.isEmpty:
            typed.removeLast()
            perform(.type(typed))
        default:
            break
        }
        return .keepGoing
    }

    // MARK: Drawing

    func draw(_ canvas: inout Canvas) {
        let width = canvas.width
        let height = canvas.height
        guard width >= 40, height >= 12 else {
            _ = canvas.draw("Make the window at least 40x12.", x: 0, y: 0)
            return
        }
        let quitKeys = typesByHand ? "type to search, Esc quit, Ctrl-R restart" : "q quit, r restart"
        canvas.drawTruncated(
            "bookshelf-demo \(scene.kind.rawValue): \(scene.kind.summary)", x: 0, y: 0, width: width, style: .bold)
        let clock = "t = \(elapsedMilliseconds) ms" + (ended == nil ? "" : " (scene over)")
        canvas.drawTruncated("latency \(schedule)   \(clock)   \(quitKeys)", x: 0, y: 1, width: width, style: .dim)
        if let holdStarted, !holdReleased {
            let left = max(0, Self.holdSeconds - Int((ContinuousClock.now - holdStarted).components.seconds))
            canvas.drawTruncated(
                "Holding on the conflict: press Space to reload theirs (or wait \(left) s)", x: 0, y: 2, width: width,
                style: Style(foreground: .yellow, attributes: .bold))
        }

        let layout = DemoScreenLayout(width: width, height: height)
        let top = DemoScreenLayout.headerRows
        drawPane(
            naive.view, side: 0, title: "naive model: the WRONG way", judge: judges.naive,
            x: layout.left.x, y: top, width: layout.left.width, height: layout.paneHeight, canvas: &canvas)
        drawPane(
            real.view, side: 1, title: "BookshelfModel: gated by (session, request)", judge: judges.real,
            x: layout.right.x, y: top, width: layout.right.width, height: layout.paneHeight, canvas: &canvas)
        for y in top..<(top + layout.paneHeight) where y < height {
            _ = canvas.draw("│", x: layout.left.width, y: y, style: .dim)
        }
        CallPanel.draw(
            naive: callLines(naive, judges.naive, fate: naive.fate(ofCall:)),
            real: callLines(real, judges.real, fate: { [real] in real.fateOfCall[$0.number] }),
            layout: layout, into: &canvas)
    }

    private func drawPane(
        _ view: PaneView, side: Int, title: String, judge: InteractiveJudge, x: Int, y: Int, width: Int, height: Int,
        canvas: inout Canvas
    ) {
        var row = y
        func line(_ text: String, _ style: Style = .plain) {
            guard row < y + height else { return }
            canvas.drawTruncated(text, x: x, y: row, width: width, style: style)
            row += 1
        }
        let spinner = ["|", "/", "-", "\\"][ticks % 4]
        line(
            title + (judge.violations == 0 ? "" : "   WRONG \(judge.violations)×"),
            judge.violations == 0 ? .bold : Style(foreground: .red, attributes: .bold))
        // The wall clock is not virtual time: answers that land together are judged together
        // here, so the count can differ from the one `--script` gives for the same latencies.
        let scripted = reference.map { "\(side == 0 ? $0.naive : $0.real) in --script" } ?? "--script counts its own"
        line(
            "\(judge.violations) violations here (wall clock) · \(scripted) (virtual time, each answer judged alone)",
            .dim)
        for finding in judge.endFindings {
            line("✗ at the end: \(finding)", Style(foreground: .red, attributes: .bold))
        }
        line("account \(view.account ?? "-")   " + (view.busy ? "\(spinner) searching" : "idle"))
        line("query: \(view.query)▏", .underline)
        if let error = view.error { line("error: \(error)", Style(foreground: .red)) }
        if let editor = view.editor {
            line(
                "editor #\(editor.bookID) rev \(editor.baseRevision.map(String.init) ?? "…"): \(editor.draft)", .reverse
            )
            if let theirs = editor.theirs {
                line("CONFLICT: someone else saved this book", Style(foreground: .yellow, attributes: .bold))
                line(
                    "  Base:   \(editor.baseTitle ?? "") (rev \(editor.baseRevision.map(String.init) ?? "…"))",
                    Style(foreground: .yellow))
                line(
                    "  Theirs: \(theirs.title) (rev \(theirs.revision))", Style(foreground: .yellow, attributes: .bold))
                line("  Yours:  \(editor.draft)", Style(foreground: .yellow))
            } else if editor.conflictShown {
                line("CONFLICT  fetching theirs…", Style(foreground: .yellow))
            } else if let status = editor.status {
                line("  \(status)", .dim)
            }
        }
        // Rows that do not answer the query shown (or that this account cannot see) are marked.
        let scope = view.account.flatMap(world.scope(of:)) ?? ""
        let answer = Set(world.expectedIDs(query: view.query, scope: scope, limit: Int.max))
        let strays = view.rows.filter { !answer.contains($0.id) }.count
        line(
            "\(view.rows.count) rows" + (strays == 0 ? "" : ", ✗ \(strays) do not answer \(quoted(view.query))"),
            strays == 0 ? .dim : Style(foreground: .red, attributes: .bold))
        for record in view.rows {
            if answer.contains(record.id) {
                line("  \(record.title)")
            } else {
                line("✗ \(record.title)", Style(foreground: .red, attributes: .reverse))
            }
        }
    }

    /// One line per store call, numbered as `--script` numbers that pane's calls: what sent it,
    /// what it asked (a search's own query), its latency, and what became of it, WRONG included.
    private func callLines(_ pane: any DemoPane, _ judge: InteractiveJudge, fate: (ScriptedCall) -> String?)
        -> [CallLine]
    {
        pane.script.calls.map { call in
            CallLine(call, cause: judge.causes[call.number], fate: judge.fate(of: call, paneFate: fate(call)))
        }
    }
}
