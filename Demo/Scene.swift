/// Something the user (or the scene's second writer) does at a moment of the scene.
enum DemoAction: Equatable, Sendable, CustomStringConvertible {
    /// Open the app as this account (lists all books).
    case start(account: String)
    /// One keystroke: the whole query text after it.
    case type(String)
    /// The whole query at once (pasted, or typed before the scene's interesting part).
    case enterQuery(String)
    /// Open the first row in the editor.
    case openFirst
    case editTitle(String)
    case save
    /// Someone else, elsewhere, saves a new title for the book being edited.
    case otherWriterSaves(title: String)
    /// Switch account (confirming that the unsaved draft may go).
    case switchAccount(String)
    /// In a conflict, take their version.
    case reloadTheirs

    var description: String {
        switch self {
        case let .start(account): "start as \(account)"
        case let .type(text): "type \(quoted(String(text.last.map { String($0) } ?? ""))) -> query \(quoted(text))"
        case let .enterQuery(text): "enter the query \(quoted(text))"
        case .openFirst: "open the first row in the editor"
        case let .editTitle(title): "edit the title to \(quoted(title))"
        case .save: "save"
        case let .otherWriterSaves(title): "another writer saves the same book as \(quoted(title))"
        case let .switchAccount(account): "switch account to \(account) (confirming the draft may go)"
        case .reloadTheirs: "conflict: reload (take theirs)"
        }
    }
}

/// One step of a scene: an action at a virtual moment. `afterIdle` steps also wait until
/// every request in flight has answered (so that, under any latency schedule, the editor
/// is open before it is edited).
struct SceneStep: Sendable {
    let at: Int
    let action: DemoAction
    var afterIdle = false
}

/// The three stories the demo tells.
enum SceneKind: String, CaseIterable, Sendable {
    case typing
    case accounts
    case conflict

    /// The latency spec a scene uses unless `--latency` says otherwise: tuned so that the
    /// story happens (old requests slower than new ones, a slow search and save pending at
    /// the switch, a save that meets another writer's commit).
    var defaultLatency: String {
        switch self {
        case .typing: "600,350,150,40"
        case .accounts: "60,60,900,900,100"
        case .conflict: "60,60,60,300,60"
        }
    }

    var summary: String {
        switch self {
        case .typing: "a query typed character by character; older searches answer after newer ones"
        case .accounts: "a slow search and a slow save are pending for alice when the user switches to carol"
        case .conflict: "while alice edits a book, another writer saves it; alice's save meets the conflict"
        }
    }
}

struct Scene: Sendable {
    let kind: SceneKind
    let steps: [SceneStep]

    static let annotatedTitle = "History of Rome (annotated)"
    static let otherWritersTitle = "History of Rome, 2nd edition"
    static let revisedTitle = "Revised by alice before the switch"

    static func make(_ kind: SceneKind, query: String, typingMilliseconds: Int) -> Scene {
        let first = DemoWorld.firstAccount.name
        switch kind {
        case .typing:
            var steps = [SceneStep(at: 0, action: .start(account: first))]
            var typed = ""
            for (index, character) in query.enumerated() {
                typed.append(character)
                steps.append(SceneStep(at: (index + 1) * typingMilliseconds, action: .type(typed)))
            }
            return Scene(kind: kind, steps: steps)
        case .accounts:
            return Scene(
                kind: kind,
                steps: [
                    SceneStep(at: 0, action: .start(account: first)),
                    SceneStep(at: 200, action: .openFirst, afterIdle: true),
                    SceneStep(at: 400, action: .editTitle(revisedTitle), afterIdle: true),
                    SceneStep(at: 450, action: .save),
                    SceneStep(at: 500, action: .enterQuery("history")),
                    SceneStep(at: 700, action: .switchAccount(DemoWorld.secondAccount.name)),
                ])
        case .conflict:
            return Scene(
                kind: kind,
                steps: [
                    SceneStep(at: 0, action: .start(account: first)),
                    SceneStep(at: 100, action: .enterQuery("history of rome")),
                    SceneStep(at: 300, action: .openFirst, afterIdle: true),
                    SceneStep(at: 500, action: .editTitle(annotatedTitle), afterIdle: true),
                    SceneStep(at: 600, action: .otherWriterSaves(title: otherWritersTitle)),
                    SceneStep(at: 700, action: .save),
                    SceneStep(at: 1300, action: .reloadTheirs, afterIdle: true),
                ])
        }
    }
}

/// Text in double quotes with control characters made visible (query text is user data).
func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
            result += "\\u{\(String(scalar.value, radix: 16))}"
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}
