import BookCatalog
import BookshelfModel
import TerminalUI

/// The update half of the app (Bubble Tea's `Update`): turns keys, resizes and ticks into
/// model intents and small UI-state changes, and hands the pure `Screen.render` what it
/// draws. It never draws by itself and never waits for the store; the model's `onChange`
/// asks for a frame whenever an answer arrives.
@MainActor
public final class BookshelfApp {
    public let model: BookshelfModel
    /// The catalog the app started with, as the header names it.
    public let startingStore: StoreInfo
    public internal(set) var ui = UIState()
    public private(set) var size: TerminalSize
    /// Asks for a frame (the terminal coalesces requests into one draw).
    public var onNeedsDraw: () -> Void = {}
    /// The user quit and nothing unsaved stands in the way.
    public var onQuit: () -> Void = {}
    /// Optional key-to-paint measurements (see `EventTrace`).
    public var trace: EventTrace?

    /// How often the store is asked whether someone else committed.
    public let freshnessInterval: Duration
    private let now: () -> Duration
    private var lastFreshnessCheck: Duration?
    private var quitReported = false

    public init(
        model: BookshelfModel,
        store: StoreInfo,
        size: TerminalSize,
        freshnessInterval: Duration = .seconds(1),
        now: @escaping () -> Duration = BookshelfApp.monotonicNow
    ) {
        self.model = model
        self.startingStore = store
        self.size = size
        self.freshnessInterval = freshnessInterval
        self.now = now
        model.onChange = { [weak self] in self?.modelChanged() }
        model.setListHeights(Self.listHeights(size))
    }

    /// The list's heights on a screen of `size`, for the model's paging.
    static func listHeights(_ size: TerminalSize) -> ListHeights {
        ListHeights(
            browsing: ScreenLayout(columns: size.columns, rows: size.rows, paneIsModal: false).list.height,
            withPaneOpen: ScreenLayout(columns: size.columns, rows: size.rows, paneIsModal: true).list.height)
    }

    public nonisolated static func monotonicNow() -> Duration { ContinuousClock.now - processStart }
    private nonisolated static let processStart = ContinuousClock.now

    /// Says `notice` on the status line until the next key (the first run's "Created ...").
    public func announce(_ notice: Notice) {
        ui.notice = notice
        onNeedsDraw()
    }

    /// Lists accounts and connects to the starting one.
    public func start() {
        model.start()
        lastFreshnessCheck = now()
    }

    /// Something is in flight that the user sees waiting for: it drives the spinner's speed and
    /// the terminal's tick. A running batch counts: its meter moves with each book without a model
    /// change, so only the busy tick repaints its progress bar as it advances.
    public var isBusy: Bool {
        let state = model.state
        return state.search.isBusy || state.search.isLoadingMore || state.editor?.activity != nil
            || state.connection.connectingTo != nil || state.bulk.batch?.isRunning == true
    }

    public var layout: ScreenLayout {
        ScreenLayout(
            columns: size.columns, rows: size.rows, paneIsModal: model.state.editor != nil || model.state.history != nil
        )
    }

    // MARK: Drawing

    /// The open catalog as the header names it: the one the user switched to, else the first.
    public var store: StoreInfo { store(in: model.state) }

    private func store(in state: BookshelfState) -> StoreInfo {
        guard let catalog = state.switchedCatalog else { return startingStore }
        return StoreInfo(kind: catalog.kind.title, location: catalog.shown, revisions: state.revisions)
    }

    /// Paints the current state (the view half: `Screen.render` is pure).
    public func render(into canvas: inout Canvas) {
        let state = model.state
        Screen.render(
            state, ui: ui, store: store(in: state), requests: ui.showsRequests ? model.log.entries : [], into: &canvas
        )
        trace?.frameRendered(model: model)
    }

    // MARK: Events

    public func handle(_ event: TerminalEvent) {
        switch event {
        case let .key(key):
            let started = trace?.keyArrived()
            ui.notice = nil
            let request = handleKey(key)
            if let started { trace?.keyHandled(key, request: request, arrived: started) }
        case let .resize(newSize):
            size = newSize
            model.setListHeights(Self.listHeights(newSize))
            trace?.resized()
        case .tick:
            tick()
        }
        checkQuit()
        onNeedsDraw()
    }

    private func tick() {
        if isBusy { ui.spinnerPhase &+= 1 }
        model.keepDraftAfterPause()
        let time = now()
        if let last = lastFreshnessCheck, time - last < freshnessInterval { return }
        lastFreshnessCheck = time
        model.checkForChanges()
    }

    private func modelChanged() {
        // "Wait for the store to answer first." is untrue once it has answered.
        if ui.notice == Self.waitForTheStore, model.state.editor?.activity == nil { ui.notice = nil }
        checkQuit()
        onNeedsDraw()
    }

    private func checkQuit() {
        guard model.state.shouldQuit, !quitReported else { return }
        quitReported = true
        onQuit()
    }

    // MARK: Keys

    /// Handles one key; returns the number of the request it started, if any. The key goes
    /// down `InputLayer.stack` to the first active layer that takes it (see `perform`).
    private func handleKey(_ key: Key) -> Int? {
        let state = model.state
        let key = Self.withoutShift(key)
        for layer in InputLayer.stack where isActive(layer, state: state) {
            for action in Keymap.actions(for: key, in: layer) {
                if case let .took(request) = perform(action, key: key, in: layer, state: state) { return request }
            }
            if layer.isModal { return nil }
        }
        return nil
    }

    /// Shift with a key that has no shifted meaning here (Shift-Home, Shift-F1) is the key.
    static func withoutShift(_ key: Key) -> Key {
        guard case let .modified(base, modifiers) = key, modifiers == .shift else { return key }
        if case .character = base { return key }
        return base
    }

    /// The longest search line a paste fills (typing is not limited; a paste of a whole
    /// page would only make a search nobody meant).
    public static let searchLineLimit = 200

    static func pasteCutNotice(limit: Int, field: String) -> Notice {
        Notice("Pasted text cut to \(limit) characters (the \(field) limit).")
    }

    static let waitForTheStore: Notice = "Wait for the store to answer first."
}
