import BookCatalog
import CatalogSimulation

/// THE WRONG WAY. Kept only so the demo can show, side by side with `BookshelfModel`, the
/// defects the actor-reentrancy seed describes. Do not copy anything from this type.
///
/// It is main-actor isolated, so it has no data race, and it is still wrong:
/// - it publishes whatever search completes, so a slow old query overwrites a newer one;
/// - one shared `busy` flag is set on every start and cleared on *any* completion, so an old
///   answer turns the spinner off while the newest request is still running;
/// - errors are published unguarded, so an obsolete failure replaces a current success;
/// - an account switch just swaps the remote: answers for the old account still land;
/// - a save that conflicts is "fixed" by saving again over the other writer's revision.
@MainActor
final class NaiveModel {
    typealias Remote = LatencyScriptedRemote<MemoryBookRemote>

    struct Editor {
        let bookID: Int
        var base: BookRecord?
        var draft = ""
        var status: String?
    }

    private var remote: Remote?
    private(set) var account: String?
    private(set) var query = ""
    private(set) var rows: [BookRecord] = []
    private(set) var error: String?
    /// The defect: one flag for everything in flight.
    private(set) var busy = false
    private(set) var editor: Editor?
    let pageSize: Int

    /// How many effects have finished; the script driver waits on it.
    private(set) var finishedEffects = 0
    /// Every effect it started, for the interactive request panel (the demo's own bookkeeping,
    /// not part of the naive design).
    private(set) var requests: [NaiveRequest] = []
    var onChange: (() -> Void)?

    init(pageSize: Int) { self.pageSize = pageSize }

    /// Uses `remote` from now on. Nothing marks answers of the previous account as foreign.
    func switchAccount(to remote: Remote, account: String) {
        self.remote = remote
        self.account = account
        rows = []
        editor = nil
        search()
    }

    func setQuery(_ text: String) {
        query = text
        search()
    }

    private func search() {
        guard let remote else { return }
        let text = query
        let limit = pageSize
        run("search \(quoted(text))") {
            do {
                let page = try await remote.search(SearchQuery(text: text, limit: limit))
                self.rows = page.records
                self.error = nil
            } catch {
                self.error = String(describing: error)
            }
        }
    }

    func open(bookID: Int) {
        guard let remote, editor == nil else { return }
        editor = Editor(bookID: bookID)
        run("load #\(bookID)") {
            do {
                let record = try await remote.load(id: bookID)
                self.editor?.base = record
                self.editor?.draft = record.title
            } catch {
                self.editor?.status = String(describing: error)
            }
        }
    }

    func setDraft(_ title: String) { editor?.draft = title }

    func save() {
        guard let remote, let editor, let base = editor.base else { return }
        let title = editor.draft
        run("save #\(base.id)") {
            do {
                let saved: BookRecord
                var overwritten: Int?
                do {
                    saved = try await remote.save(
                        SaveRequest(id: base.id, title: title, expectedRevision: base.revision))
                } catch let BookFailure.conflict(_, actual) {
                    // "Just make it work": save again over whatever is there now. The other
                    // writer's edit is silently lost.
                    overwritten = actual
                    saved = try await remote.save(SaveRequest(id: base.id, title: title, expectedRevision: actual))
                }
                self.editor?.base = saved
                // The demo says what the naive user is never told.
                self.editor?.status =
                    "saved revision \(saved.revision)"
                    + (overwritten.map { ", silently overwriting someone else's revision \($0)" } ?? "")
                if let index = self.rows.firstIndex(where: { $0.id == saved.id }) { self.rows[index] = saved }
            } catch {
                self.editor?.status = String(describing: error)
            }
        }
    }

    /// Starts an effect the naive way: busy on, and busy off when *this* effect ends.
    private func run(_ what: String, _ body: @escaping @MainActor () async -> Void) {
        busy = true
        let index = requests.count
        requests.append(NaiveRequest(number: index + 1, what: what, started: .now))
        onChange?()
        Task { @MainActor in
            await body()
            self.busy = false
            self.finishedEffects += 1
            self.requests[index].finished = .now
            self.onChange?()
        }
    }
}

struct NaiveRequest {
    let number: Int
    let what: String
    let started: ContinuousClock.Instant
    var finished: ContinuousClock.Instant?
}
