import BookshelfModel
import BookshelfUI

/// Waits until no search of the app is on its way (its page is on screen, though a count may
/// follow), woken by the app's request to draw as the real app's loop is, not by polling. A
/// poll every 100 µs woke three of the bench's threads ten thousand times a second: beside a
/// bulk edit's process, which takes one of two cores, they took half of the other from the
/// search they waited for (`perf sched record` of `bookshelf-bench bulk`), and keys measured
/// twice what they took.
@MainActor
final class SearchShownWait {
    private let model: BookshelfModel
    private var waiter: CheckedContinuation<Void, Never>?

    /// Takes over `app`'s draw requests.
    init(_ app: BookshelfApp, model: BookshelfModel) {
        self.model = model
        app.onNeedsDraw = { [unowned self] in
            waiter?.resume()
            waiter = nil
        }
    }

    func untilShown() async {
        // Checked and waited for in one turn of the main actor: no change can come in between,
        // and every change of a request's fate asks to draw.
        while model.pendingRequests.contains(where: { $0.kind == .search }) {
            await withCheckedContinuation { waiter = $0 }
        }
    }
}
