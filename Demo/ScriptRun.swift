import BookCatalog
import CatalogSimulation
import Foundation

/// `--script` mode: runs a scene on virtual time and writes a transcript.
///
/// The scheduler keeps one timeline for both panes: scene steps (keystrokes and other
/// actions) and the scripted answers of each pane's store, processed strictly in time
/// order. Ties are broken the same way every run: answers before steps at the same instant,
/// and among answers the naive pane's before the real pane's, each pane's in the order its
/// requests arrived. After every event each pane's oracle checks what the pane shows.
@MainActor
final class ScriptRun {
    let options: DemoOptions
    let scene: Scene
    let world = DemoWorld()
    let panes: [any DemoPane]
    let clocks: [VirtualClock]
    let oracles: [PaneOracle]
    private var fates: [[Int: String]]
    /// What sent each pane's call, by number: the scene step ("step 3") or an answer ("after #4").
    private var causes: [[Int: String]]
    private var lastAnswered = [0, 0]
    private var output: [String] = []

    init(options: DemoOptions, schedule: LatencySchedule) {
        self.options = options
        scene = Scene.make(options.scene, query: options.query, typingMilliseconds: options.typingMilliseconds)
        let naiveClock = VirtualClock()
        let realClock = VirtualClock()
        clocks = [naiveClock, realClock]
        panes = [
            NaivePane(
                world: world, schedule: schedule, clock: naiveClock, pageSize: options.pageSize,
                readPause: .milliseconds(options.storePauseMilliseconds)),
            RealPane(
                world: world, schedule: schedule, clock: realClock, pageSize: options.pageSize,
                readPause: .milliseconds(options.storePauseMilliseconds)),
        ]
        oracles = panes.map { _ in PaneOracle(world: DemoWorld(), pageSize: options.pageSize) }
        fates = panes.map { _ in [:] }
        causes = panes.map { _ in [:] }
    }

    private var now: Int { clocks[0].nowMilliseconds }

    /// How many violations the oracle found in each pane, for the interactive screen to compare.
    struct Counts: Sendable {
        let naive: Int
        let real: Int
    }

    var counts: Counts { Counts(naive: oracles[0].violations.count, real: oracles[1].violations.count) }

    /// Runs the scene; returns the lines of the transcript and whether the real model stayed right.
    func run() async -> (transcript: [String], realModelRight: Bool, naiveCaught: Bool) {
        let schedule = panes[1].script.schedule
        emit("bookshelf-demo \(scene.kind.rawValue) --script: \(scene.kind.summary)")
        emit("latency \(schedule), typing \(options.typingMilliseconds) ms per key, virtual time")
        emit("left pane: naive model (the WRONG way); right pane: BookshelfModel")
        emit("")

        var next = 0
        while true {
            let step = next < scene.steps.count ? scene.steps[next] : nil
            if let (index, wake) = earliestWake(),
                step == nil || step!.afterIdle || wake.wakeMilliseconds <= step!.at
            {
                advance(to: wake.wakeMilliseconds)
                await answer(pane: index)
            } else if let step {
                advance(to: max(step.at, now))
                await perform(step.action, step: next + 1)
                next += 1
            } else {
                break
            }
        }

        for (index, pane) in panes.enumerated() {
            let before = oracles[index].violations.count
            await oracles[index].checkEnd(scene.kind, view: pane.view, catalog: pane.catalog)
            for violation in oracles[index].violations[before...] {
                emit("          !! \(pane.name) at the end: \(violation)")
            }
        }
        emitRequestTable()
        emitFinalState()
        let realRight = oracles[1].violations.isEmpty
        let naiveCaught = !oracles[0].violations.isEmpty
        emit("")
        emit(
            "SUMMARY scene=\(scene.kind.rawValue) latency=\(schedule.description.replacingOccurrences(of: " ", with: "/")) "
                + "real=\(realRight ? "ok" : "WRONG") real_violations=\(oracles[1].violations.count) "
                + "naive=\(naiveCaught ? "caught" : "not-caught") naive_violations=\(oracles[0].violations.count)"
                + (naiveCaught ? " (\(breakdown(oracles[0].violations)))" : ""))
        return (output, realRight, naiveCaught)
    }

    // MARK: Events

    private func earliestWake() -> (Int, VirtualClock.PendingWake)? {
        var best: (Int, VirtualClock.PendingWake)?
        for (index, clock) in clocks.enumerated() {
            guard let wake = clock.nextWake else { continue }
            if best == nil || wake.wakeMilliseconds < best!.1.wakeMilliseconds { best = (index, wake) }
        }
        return best
    }

    private func advance(to milliseconds: Int) {
        clocks.forEach { $0.advance(to: milliseconds) }
    }

    private func perform(_ action: DemoAction, step: Int) async {
        noteUnattributedCalls()
        emit("\(stamp(now))  user   step \(step): \(action)")
        for (index, pane) in panes.enumerated() {
            let before = pane.view
            let known = pane.script.calls.count
            await pane.perform(action)
            await requestsReachedTheStore(pane: index)
            let calls = pane.script.calls
            await oracles[index].noteAction(action, callsBefore: known, calls: calls, catalog: pane.catalog)
            for call in calls[known...] {
                causes[index][call.number] = "step \(step)"
                emit(
                    "\(stamp(nil))  \(label(pane)) #\(call.number) \(describe(call, index))"
                        + " sent\(call.failsByScript ? " (scripted to fail)" : ""), answers in \(call.latencyMilliseconds) ms"
                )
            }
            report(oracles[index].check(.action(action), before: before, after: pane.view, calls: calls), pane)
            noteEditorChange(pane, from: before.editor)
        }
    }

    private func answer(pane index: Int) async {
        let pane = panes[index]
        let before = pane.view
        let marker = pane.progressMarker()
        let known = pane.script.calls.count
        noteUnattributedCalls()
        guard let woken = clocks[index].wakeNext() else { return }
        await pane.script.waitForFinish(of: woken.request)
        await pane.settle(since: marker)
        await requestsReachedTheStore(pane: index)
        let calls = pane.script.calls
        let call = calls[woken.request - 1]
        let fate = pane.fate(since: marker) ?? "?"
        let found = oracles[index].check(.answer(call.number), before: before, after: pane.view, calls: calls)
        lastAnswered[index] = call.number
        fates[index][call.number] = found.isEmpty ? fate : "\(fate), WRONG"
        emit("\(stamp(now))  \(label(pane)) #\(call.number) \(describe(call, index)) \(outcome(call)) -> \(fate)")
        // Follow-up requests the answer caused (a conflict fetching theirs, a blind retry).
        for follow in calls[known...] {
            causes[index][follow.number] = "after #\(call.number)"
            emit(
                "\(stamp(nil))  \(label(pane)) #\(follow.number) \(describe(follow, index)) sent, answers in \(follow.latencyMilliseconds) ms"
            )
        }
        report(found, pane)
        noteEditorChange(pane, from: before.editor)
    }

    /// Time must not move while a request is on its way to the store: a request an action or
    /// an answer started (a switch's search once the save went through, a conflict fetching
    /// theirs) first reads the catalog, then parks on the clock; moving on before it parks
    /// would answer it late, or end the scene with it never answered.
    private func requestsReachedTheStore(pane index: Int) async {
        let pane = panes[index]
        let clock = clocks[index]
        await waitUntil("the requests an event started to reach the \(pane.name) pane's store") {
            pane.isSettled && clock.arrivalCount == pane.script.callCount
        }
    }

    /// A call that reached the store once the model had settled (a switch that waited for a
    /// save connects, then searches): it follows the last answer that pane took.
    private func noteUnattributedCalls() {
        for (index, pane) in panes.enumerated() {
            for call in pane.script.calls where causes[index][call.number] == nil {
                causes[index][call.number] = "after #\(lastAnswered[index])"
                emit(
                    "\(stamp(nil))  \(label(pane)) #\(call.number) \(describe(call, index)) sent after #\(lastAnswered[index]), "
                        + "answers in \(call.latencyMilliseconds) ms")
            }
        }
    }

    /// Tells the editor's story (opened, saving, conflict with theirs and yours, saved, closed).
    private func noteEditorChange(_ pane: any DemoPane, from before: PaneView.Editor?) {
        let after = pane.view.editor
        guard after != before else { return }
        guard let editor = after else {
            emit("          \(label(pane)) editor: closed")
            return
        }
        var text = "editor on #\(editor.bookID)"
        if let revision = editor.baseRevision { text += " rev \(revision)" }
        if let theirs = editor.theirs {
            text += ": CONFLICT, theirs \(quoted(theirs.title)) (rev \(theirs.revision)), yours \(quoted(editor.draft))"
        } else {
            text += ", draft \(quoted(editor.draft))" + (editor.status.map { " (\($0))" } ?? "")
        }
        emit("          \(label(pane)) \(text)")
    }

    private func report(_ found: [Violation], _ pane: any DemoPane) {
        for violation in found { emit("          !! \(pane.name): \(violation)") }
    }

    // MARK: Formatting

    private func emit(_ line: String) { output.append(line) }

    private func stamp(_ milliseconds: Int?) -> String {
        guard let milliseconds else { return String(repeating: " ", count: 8) }
        let text = "\(milliseconds) ms"
        return String(repeating: " ", count: max(0, 8 - text.count)) + text
    }

    private func label(_ pane: any DemoPane) -> String {
        pane.name.padding(toLength: 5, withPad: " ", startingAt: 0)
    }

    private func describe(_ call: ScriptedCall, _ index: Int) -> String {
        let account = call.label.isEmpty ? "" : " (\(call.label))"
        if call.kind == .search { return "search \(quoted(call.query ?? ""))\(account)" }
        return "\(call.kind)\(account)"
    }

    private func outcome(_ call: ScriptedCall) -> String {
        switch call.outcome {
        case .pending: "pending"
        case let .answered(ids): call.kind == .search ? "answered (\(ids.count) rows)" : "answered"
        case let .failed(failure, injected):
            injected ? "failed (scripted)" : "failed (\(failure.map { "\($0)" } ?? "error"))"
        }
    }

    /// Pane `index`'s calls as the interactive panel lists them, with the fates and causes of
    /// this run's table.
    func callLines(pane index: Int) -> [CallLine] {
        panes[index].script.calls.map { call in
            CallLine(call, cause: causes[index][call.number], fate: fate(of: call, index))
        }
    }

    private func fate(of call: ScriptedCall, _ index: Int) -> String {
        fates[index][call.number] ?? (call.outcome == .pending ? "never answered" : "?")
    }

    /// One table per pane: each pane numbers the requests that reach its own store, so the
    /// same number can be another action on the other side; "sent by" names the scene step.
    private func emitRequestTable() {
        emit("")
        emit("requests, numbered by each pane in the order they reached its store: the same number is not")
        emit("always the same action on both sides (\"sent by\" says which scene step or answer sent it)")
        for (index, pane) in panes.enumerated() {
            emit("")
            emit("\(pane.name) pane")
            emit("   #  sent by   request                                  latency  what became of the answer")
            for call in pane.script.calls {
                let cause = causes[index][call.number] ?? "-"
                emit(
                    String(format: "%4d  ", call.number) + cause.padding(toLength: 9, withPad: " ", startingAt: 0) + " "
                        + describe(call, index).padding(toLength: 40, withPad: " ", startingAt: 0)
                        + " " + "\(call.latencyMilliseconds) ms".leftPadded(7) + "  "
                        + fate(of: call, index))
            }
            let counts = Dictionary(grouping: fates[index].values, by: { $0 }).mapValues(\.count)
            emit("   \(pane.name): " + counts.keys.sorted().map { "\(counts[$0]!) \($0)" }.joined(separator: ", "))
        }
        emit("")
        for line in FateLegend.lines { emit(line) }
    }

    private func emitFinalState() {
        emit("")
        emit("final state")
        for (index, pane) in panes.enumerated() {
            let view = pane.view
            let answers =
                oracles[index].queryAnswered(by: view.rowIDs).map { "answering \(quoted($0))" }
                ?? "answering no typed query"
            var line =
                "  \(label(pane)) account \(view.account ?? "-"), query \(quoted(view.query)), "
                + "\(view.rows.count) rows \(answers), busy \(view.busy ? "yes" : "no"), error \(view.error.map(quoted) ?? "none")"
            if let editor = view.editor {
                line +=
                    "; editor on #\(editor.bookID) rev \(editor.baseRevision.map(String.init) ?? "-") draft \(quoted(editor.draft))"
                    + (editor.status.map { " (\($0))" } ?? "")
            }
            emit(line)
            if let first = view.rows.first { emit("         first row: \(quoted(first.title))") }
            emit(
                "         verdict: "
                    + (oracles[index].violations.isEmpty
                        ? "right at every event"
                        : "WRONG \(oracles[index].violations.count) times (\(breakdown(oracles[index].violations)))"))
        }
    }

    private func breakdown(_ violations: [Violation]) -> String {
        ViolationKind.allCases.compactMap { kind in
            let count = violations.filter { $0.kind == kind }.count
            return count == 0 ? nil : "\(count) \(kind.rawValue)"
        }.joined(separator: ", ")
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
