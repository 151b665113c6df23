import BookshelfModel
import TerminalUI

/// Measures how long each key takes to reach the screen, and writes one line per event to a
/// sink (the `--trace` file). Lines carry identifiers and durations only, never query text,
/// titles or the character typed:
///
///     event=key key=character request=12 fate=published key_to_paint_ms=3.412
///     event=request request=12 session=1 kind=search started_ms=... store_ms=2.100 fate=published source=index
///     event=resize key_to_paint_ms=0.870
///
/// A key that started a request is "painted" by the first frame drawn after that request's
/// answer was processed (published, or dropped because a newer key superseded it); any other
/// key by the next frame. The time is taken after the frame reached the terminal.
@MainActor
public final class EventTrace {
    struct Pending {
        let kind: String
        let key: String?
        let request: Int?
        let arrived: Duration
        var fate: String?
    }

    private let sink: (String) -> Void
    private let now: () -> Duration
    private var pending: [Pending] = []
    private var rendered: [Pending] = []
    /// Key-to-paint times of finished keys, in milliseconds (for the benchmark).
    public private(set) var keyToPaintMilliseconds: [Double] = []
    /// Keep at most this many durations in memory (the file has them all).
    public var retainedDurations = 1_000_000

    public init(now: @escaping () -> Duration = BookshelfApp.monotonicNow, sink: @escaping (String) -> Void) {
        self.now = now
        self.sink = sink
    }

    /// Writes a finished store request (the model's `onTrace`).
    public func request(_ trace: RequestTrace) {
        sink("event=request \(trace.description)")
    }

    func keyArrived() -> Duration { now() }

    func keyHandled(_ key: Key, request: Int?, arrived: Duration) {
        pending.append(Pending(kind: "key", key: Self.name(of: key), request: request, arrived: arrived))
    }

    func resized() {
        pending.append(Pending(kind: "resize", key: nil, request: nil, arrived: now()))
    }

    /// A frame was rendered: the events it answers move on to wait for `framePresented`.
    func frameRendered(model: BookshelfModel) {
        guard !pending.isEmpty else { return }
        let running = Set(model.runningRequests)
        var waiting: [Pending] = []
        for var event in pending {
            if let request = event.request, running.contains(request) {
                waiting.append(event)
                continue
            }
            if let request = event.request {
                event.fate = model.log.trace(ofRequest: request).map { "\($0.fate)" } ?? "unknown"
            }
            rendered.append(event)
        }
        pending = waiting
    }

    /// Whether a rendered frame answered events that now wait for `framePresented`.
    public var awaitsPresentation: Bool { !rendered.isEmpty }

    /// The frame rendered last is on the terminal: stamps the events it answered.
    public func framePresented() {
        guard !rendered.isEmpty else { return }
        let time = now()
        for event in rendered {
            let milliseconds = Double((time - event.arrived) / .microseconds(1)) / 1000
            if event.kind == "key", keyToPaintMilliseconds.count < retainedDurations {
                keyToPaintMilliseconds.append(milliseconds)
            }
            var line = "event=\(event.kind)"
            if let key = event.key { line += " key=\(key)" }
            if let request = event.request { line += " request=\(request)" }
            if let fate = event.fate { line += " fate=\(fate)" }
            line += " key_to_paint_ms=" + Self.format(milliseconds)
            sink(line)
        }
        rendered.removeAll(keepingCapacity: true)
    }

    /// The kind of key, never the character: a typed letter is part of a query.
    static func name(of key: Key) -> String {
        switch key {
        case .character: "character"
        case .up: "up"
        case .down: "down"
        case .left: "left"
        case .right: "right"
        case .home: "home"
        case .end: "end"
        case .pageUp: "page-up"
        case .pageDown: "page-down"
        case .insert: "insert"
        case .delete: "delete"
        case .backspace: "backspace"
        case .enter: "enter"
        case .tab: "tab"
        case .backTab: "back-tab"
        case .escape: "escape"
        case let .ctrl(letter): "ctrl-\(letter)"
        case let .function(number): "f\(number)"
        case .paste: "paste"
        case let .modified(base, modifiers):
            (modifiers.contains(.ctrl) ? "ctrl-" : "") + (modifiers.contains(.alt) ? "alt-" : "")
                + (modifiers.contains(.shift) ? "shift-" : "") + name(of: base)
        case let .mouse(event):
            switch event.action {
            case .click: "click"
            case .wheelUp: "wheel-up"
            case .wheelDown: "wheel-down"
            }
        }
    }

    static func format(_ milliseconds: Double) -> String {
        let thousandths = Int((milliseconds * 1000).rounded())
        let fraction = String(thousandths % 1000)
        return "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
