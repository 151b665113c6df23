import BookCatalog
import CatalogSimulation

/// The kinds of wrong the seed names, plus the lost update of the conflict scene.
enum ViolationKind: String, CaseIterable, Sendable {
    case staleResult = "stale result"
    case staleError = "stale error"
    case staleBusy = "stale busy state"
    case oldSession = "old-session data"
    case missedAnswer = "newest answer not shown"
    case lostUpdate = "lost update"
}

struct Violation: Sendable, CustomStringConvertible {
    let kind: ViolationKind
    let detail: String
    var description: String { "\(kind.rawValue): \(detail)" }
}

/// What happened, for the oracle: a user action or the answer of one scripted call.
enum PaneEvent {
    case action(DemoAction)
    case answer(Int)
}

/// An independent judge of one pane. It never asks the model what is current: it keeps its
/// own note of what the demo did (which account, which text was typed, which calls reached
/// the store) and decides from that and the script's log what the pane may show after
/// every event:
/// - the busy indicator is on exactly while the newest search of the current session is in flight;
/// - the newest search's answer is shown when it arrives (its rows, computed here from the
///   world's books, or an error if it failed);
/// - any other answer (older, or from a previous session) changes nothing on screen;
/// - rows only ever hold books the current account can see; no editor of a previous session survives;
/// - in a conflict, the other writer's edit is never silently overwritten and theirs is shown.
@MainActor
final class PaneOracle {
    let world: DemoWorld
    let pageSize: Int
    private(set) var violations: [Violation] = []
    /// The demo's own note of the query each search call asked (the model never records it).
    private(set) var queryOfCall: [Int: String] = [:]
    private var account: String?
    private var sessionFirstCall = Int.max
    /// A switch the user asked for that the pane has not made yet (the real model waits
    /// for a save in flight to go through first), and how many calls there were then.
    private var switchingTo: (account: String, callsBefore: Int)?
    private var typed = ""
    private var editorOpenedInSession = false
    private(set) var otherWritersRecord: BookRecord?
    private var sawTheirs = false

    init(world: DemoWorld, pageSize: Int) {
        self.world = world
        self.pageSize = pageSize
    }

    /// Records what an action means for what may be shown next; call after the pane performed
    /// it. `callsBefore` is how many calls had reached the store before the action: a switch
    /// with no save to wait for has already sent the new session's search by now.
    func noteAction(_ action: DemoAction, callsBefore: Int, calls: [ScriptedCall], catalog: MemoryCatalog) async {
        switch action {
        case let .start(name):
            account = name
            sessionFirstCall = callsBefore + 1
            editorOpenedInSession = false
        case let .switchAccount(name):
            switchingTo = (name, callsBefore)
        case let .type(text), let .enterQuery(text):
            typed = text
        case .openFirst:
            editorOpenedInSession = true
        case .otherWriterSaves:
            if let bookID = calls.last(where: { if case .load = $0.kind { true } else { false } }).flatMap({
                call -> Int? in
                if case let .load(id) = call.kind { id } else { nil }
            }) {
                otherWritersRecord = try? await MemoryBookRemote(catalog: catalog, account: OtherWriter.account).load(
                    id: bookID)
            }
        case .editTitle, .save, .reloadTheirs:
            break
        }
        for call in calls where call.kind == .search && queryOfCall[call.number] == nil {
            queryOfCall[call.number] = typed
        }
    }

    /// Checks the pane after one event; returns what it found wrong (also kept in `violations`).
    @discardableResult
    func check(_ event: PaneEvent, before: PaneView, after: PaneView, calls: [ScriptedCall]) -> [Violation] {
        var found: [Violation] = []
        func flag(_ kind: ViolationKind, _ detail: String) { found.append(Violation(kind: kind, detail: detail)) }

        // The new session starts when the pane shows the new account, not when it was asked
        // for: the real model waits for a save in flight to go through first. The searches
        // the new session starts on its own ask what is typed.
        var switchedNow = false
        if let switching = switchingTo, after.account == switching.account {
            account = switching.account
            sessionFirstCall =
                calls.first { $0.number > switching.callsBefore && $0.label == switching.account }?.number
                ?? calls.count + 1
            editorOpenedInSession = false
            switchingTo = nil
            switchedNow = true
            for call in calls
            where call.kind == .search && call.number >= sessionFirstCall && queryOfCall[call.number] == nil {
                queryOfCall[call.number] = typed
            }
        }

        let scope = account.flatMap(world.scope(of:))
        if let scope, let stranger = after.rows.first(where: { !world.ids(inScope: scope).contains($0.id) }) {
            flag(.oldSession, "\(quoted(stranger.title)) is shown, but \(account ?? "") cannot see it")
        }
        if after.editor != nil, !editorOpenedInSession {
            flag(.oldSession, "an editor from the previous session is still shown")
        }

        // A search of the previous session can reach the store after the new session's first
        // call (its task was started before the switch): the label says whose it is.
        let newest = calls.last { $0.kind == .search && $0.number >= sessionFirstCall && $0.label == account }
        if let newest {
            let pending = newest.outcome == .pending
            if after.busy != pending {
                flag(
                    .staleBusy,
                    pending
                        ? "the spinner is off while the newest search #\(newest.number) is still in flight"
                        : "the spinner is on although no search of this session is in flight")
            }
        }

        // An answer taken just before the session changed: the new session redrew the screen.
        if case let .answer(number) = event, !switchedNow, number >= 1, number <= calls.count {
            let call = calls[number - 1]
            let query = queryOfCall[number].map(quoted) ?? ""
            let isOldSession = number < sessionFirstCall || call.label != account
            if call.kind == .search, number == newest?.number {
                switch call.outcome {
                case let .answered(expected):
                    // What the store answered, as it stood when it read (a save may have
                    // committed since the scene began).
                    if after.rowIDs != expected {
                        flag(
                            .missedAnswer,
                            "the newest search #\(number) \(query) answered but the rows are not its answer")
                    }
                    if after.error != nil {
                        flag(.staleError, "an error is shown although the newest search #\(number) succeeded")
                    }
                case .failed:
                    if after.error == nil {
                        flag(.missedAnswer, "the newest search #\(number) failed but no error is shown")
                    }
                    if after.rowIDs != before.rowIDs {
                        flag(.staleResult, "a failed search #\(number) changed the rows")
                    }
                case .pending:
                    break
                }
            } else if call.kind == .search {
                let kind: ViolationKind = isOldSession ? .oldSession : .staleResult
                let why = isOldSession ? "from the previous session" : "superseded by #\(newest?.number ?? 0)"
                if after.rowIDs != before.rowIDs {
                    flag(kind, "search #\(number) \(query), \(why), replaced the rows")
                }
                if after.error != before.error {
                    flag(
                        isOldSession ? .oldSession : .staleError,
                        "search #\(number) \(query), \(why), changed the error line")
                }
            } else if isOldSession, after.editor != before.editor || after.rows != before.rows {
                flag(.oldSession, "the answer to \(call.kind) #\(number) from the previous session changed the screen")
            }
        }

        if let theirs = after.editor?.theirs, let written = otherWritersRecord {
            if theirs == written {
                sawTheirs = true
            } else if theirs.revision < written.revision {
                flag(
                    .staleResult,
                    "the conflict shows revision \(theirs.revision) as theirs, but theirs is \(written.revision)")
            }
        }

        violations += found
        return found
    }

    /// Checks that hold once the scene is over.
    func checkEnd(_ scene: SceneKind, view: PaneView, catalog: MemoryCatalog) async {
        var found: [Violation] = []
        switch scene {
        case .typing:
            let expected = world.expectedIDs(
                query: typed, scope: account.flatMap(world.scope(of:)) ?? "", limit: pageSize)
            if view.rowIDs != expected, view.error == nil {
                found.append(
                    Violation(
                        kind: .staleResult,
                        detail: "it ends showing rows that do not answer the final query \(quoted(typed))"))
            }
        case .accounts:
            if view.account != account {
                found.append(
                    Violation(kind: .oldSession, detail: "it ends as \(view.account ?? "nobody"), not \(account ?? "")")
                )
            }
        case .conflict:
            guard let written = otherWritersRecord else { break }
            let stored = try? await MemoryBookRemote(catalog: catalog, account: OtherWriter.account).load(
                id: written.id)
            if stored != written {
                found.append(
                    Violation(
                        kind: .lostUpdate,
                        detail:
                            "the other writer's \(quoted(written.title)) was silently overwritten with \(quoted(stored?.title ?? "?"))"
                    ))
            }
            if !sawTheirs {
                found.append(
                    Violation(kind: .lostUpdate, detail: "the user was never shown the other writer's version"))
            } else if view.editor?.draft != written.title || view.editor?.baseRevision != written.revision {
                found.append(Violation(kind: .lostUpdate, detail: "reload did not take theirs into the editor"))
            }
        }
        violations += found
    }

    /// Which typed query the rows answer, if any (for the final-state report).
    func queryAnswered(by rowIDs: [Int]) -> String? {
        let scope = account.flatMap(world.scope(of:)) ?? ""
        return Set(queryOfCall.values).sorted { $0.count > $1.count }.first {
            world.expectedIDs(query: $0, scope: scope, limit: pageSize) == rowIDs
        }
    }
}
