import BookCatalog
import CatalogSimulation

/// The oracle of `--script`, on wall-clock time: judges one pane after every action and after
/// every answer, so the interactive request panel marks WRONG publications as the transcript
/// does. Answers are judged only when the pane is settled (`DemoPane.isSettled`): an answer
/// the store gave but the model has not taken yet is judged once it has, never half-way.
@MainActor
final class InteractiveJudge {
    let oracle: PaneOracle
    /// The scene step that sent each call, by number ("step 3"), as `--script`'s "sent by" says.
    private(set) var causes: [Int: String] = [:]
    /// The calls (by number) after whose answer the screen was wrong.
    private(set) var wrongCalls: Set<Int> = []
    private(set) var violations = 0
    /// What the scene's end check found (a lost update, rows not answering the last query).
    private(set) var endFindings: [Violation] = []
    private var judged: Set<Int> = []
    private var lastView: PaneView?

    init(world: DemoWorld, pageSize: Int) {
        oracle = PaneOracle(world: world, pageSize: pageSize)
    }

    /// Call after the pane performed scene step `step` and its calls reached the store;
    /// `known` is how many calls had reached it before.
    func noteAction(_ action: DemoAction, step: Int, callsFrom known: Int, pane: any DemoPane) async {
        for call in pane.script.calls.dropFirst(known) where causes[call.number] == nil {
            causes[call.number] = "step \(step)"
        }
        let before = lastView ?? pane.view
        await oracle.noteAction(action, callsBefore: known, calls: pane.script.calls, catalog: pane.catalog)
        guard pane.isSettled else { return }  // an answer came meanwhile: judged with it, once taken
        violations += oracle.check(.action(action), before: before, after: pane.view, calls: pane.script.calls).count
        lastView = pane.view
    }

    /// Judges the answers that arrived since the last judgement, if the pane has taken them.
    func judgeAnswers(of pane: any DemoPane) {
        guard pane.isSettled else { return }
        let calls = pane.script.calls
        let after = pane.view
        let before = lastView ?? after
        // Answers taken together are judged together: what changed is the newest one's doing
        // (the older ones are judged as having changed nothing, which is all they may do).
        let taken = calls.filter { $0.outcome != .pending && !judged.contains($0.number) }
        for call in taken {
            judged.insert(call.number)
            let before = call.number == taken.last?.number ? before : after
            let found = oracle.check(.answer(call.number), before: before, after: after, calls: calls)
            if !found.isEmpty { wrongCalls.insert(call.number) }
            violations += found.count
        }
        lastView = after
    }

    /// What became of a call, in the words of `--script` and the legend: the pane's own word
    /// for it (`paneFate`), and ", WRONG" when the oracle found the screen wrong after it.
    func fate(of call: ScriptedCall, paneFate: String?) -> String {
        guard call.outcome != .pending else { return "in flight" }
        guard judged.contains(call.number) else { return "answered" }
        return (paneFate ?? "answered") + (wrongCalls.contains(call.number) ? ", WRONG" : "")
    }

    /// The checks that hold once the scene is over, as `--script` makes them.
    func finish(_ scene: SceneKind, pane: any DemoPane) async {
        let before = oracle.violations.count
        await oracle.checkEnd(scene, view: pane.view, catalog: pane.catalog)
        endFindings = Array(oracle.violations[before...])
        violations += endFindings.count
    }
}
