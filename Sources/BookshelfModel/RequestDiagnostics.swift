import BookCatalog

/// Why a failure happened, without its message: messages from a store can quote user data.
public enum FailureKind: String, Sendable, Hashable {
    case missing, conflict, notAllowed, invalidInput, unavailable, refused, outcomeUnknown
    case invalidResponse, unsupported, revisionExhausted, other

    init(_ error: any Error) {
        guard let failure = error as? BookFailure else {
            self = .other
            return
        }
        switch failure {
        case .missing: self = .missing
        case .conflict: self = .conflict
        case .notAllowed: self = .notAllowed
        case .invalidTitle, .invalidAuthor, .invalidField: self = .invalidInput
        case .storeUnavailable: self = .unavailable
        case .storeRefused: self = .refused
        case .outcomeUnknown: self = .outcomeUnknown
        case .invalidResponse: self = .invalidResponse
        case .unsupported: self = .unsupported
        case .revisionExhausted: self = .revisionExhausted
        case .unrecordedBeforeBatch: self = .other
        }
    }
}

/// What became of a request's answer.
public enum RequestFate: Sendable, Hashable, CustomStringConvertible {
    /// It was the current request of the current session; its answer is on screen.
    case published
    /// It failed while current; its error is on screen (or, for a background re-read, noted).
    case failed(FailureKind)
    /// A newer request of the same kind took over before it answered; nothing was shown.
    case droppedStale
    /// The account session changed before it answered; nothing was shown.
    case droppedOldSession
    /// It was cancelled because it was no longer needed; nothing was shown.
    case cancelled

    public var description: String {
        switch self {
        case .published: "published"
        case let .failed(kind): "failed(\(kind.rawValue))"
        case .droppedStale: "dropped-stale"
        case .droppedOldSession: "dropped-old-session"
        case .cancelled: "cancelled"
        }
    }

    public var wasShown: Bool {
        switch self {
        case .published, .failed: true
        case .droppedStale, .droppedOldSession, .cancelled: false
        }
    }
}

/// One finished request: identifiers and timings only, never query text, titles or credentials.
public struct RequestTrace: Sendable, Hashable, CustomStringConvertible {
    public let request: Int
    public let session: Int
    public let kind: RequestKind
    /// When the request started, measured from the model's creation.
    public let started: Duration
    /// How long the store took to answer.
    public let storeTime: Duration
    public let fate: RequestFate
    /// Which server answered, when the store serves reads from several (a standby, or the
    /// primary a read fell back to) and the answer was shown; nil otherwise.
    public let answeredBy: ReadRoute?
    /// What answered a search (the index, the books while it is built, the database's search
    /// function…), when the store says and the answer was shown; nil otherwise.
    public let source: SearchAnswerSource?

    public init(
        request: Int, session: Int, kind: RequestKind, started: Duration, storeTime: Duration, fate: RequestFate,
        answeredBy: ReadRoute? = nil, source: SearchAnswerSource? = nil
    ) {
        self.request = request
        self.session = session
        self.kind = kind
        self.started = started
        self.storeTime = storeTime
        self.fate = fate
        self.answeredBy = answeredBy
        self.source = source
    }

    /// One line for a trace file: `request=12 session=2 kind=search store_ms=3.210 fate=published`,
    /// and what answered a shown search: ` source=index`.
    public var description: String {
        "request=\(request) session=\(session) kind=\(kind.rawValue) "
            + "started_ms=\(Self.milliseconds(started)) store_ms=\(Self.milliseconds(storeTime)) fate=\(fate)"
            + (source.map { " source=\($0)" } ?? "")
    }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        let sign = micros < 0 ? "-" : ""
        let magnitude = micros.magnitude
        let fraction = String(magnitude % 1000)
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}

/// A request still waiting for the store.
public struct PendingRequest: Sendable, Hashable {
    public let request: Int
    public let session: Int
    public let kind: RequestKind
}

/// The last `capacity` request traces, oldest first. Bounded so a long session cannot grow it.
public struct RequestLog: Sendable, Equatable {
    public let capacity: Int
    private var storage: [RequestTrace] = []
    private var head = 0
    /// How many traces were ever recorded (including those the ring has since overwritten).
    public private(set) var recordedCount = 0

    public init(capacity: Int = 200) {
        self.capacity = max(1, capacity)
        storage.reserveCapacity(self.capacity)
    }

    public mutating func record(_ trace: RequestTrace) {
        recordedCount += 1
        if storage.count < capacity {
            storage.append(trace)
        } else {
            storage[head] = trace
            head = (head + 1) % capacity
        }
    }

    public var entries: [RequestTrace] { Array(storage[head...] + storage[..<head]) }

    public var last: RequestTrace? { storage.isEmpty ? nil : storage[(head + storage.count - 1) % storage.count] }

    /// The trace of one request, if it finished and is still in the ring.
    public func trace(ofRequest request: Int) -> RequestTrace? { storage.first { $0.request == request } }
}

/// The time source for store timings. Tests inject a scripted one; the app uses `continuous`.
public struct StoreClock: Sendable {
    public let now: @Sendable () -> Duration

    public init(now: @escaping @Sendable () -> Duration) { self.now = now }

    /// Time since this clock was made, from `ContinuousClock`.
    public static func continuous() -> StoreClock {
        let origin = ContinuousClock.now
        return StoreClock { ContinuousClock.now - origin }
    }
}
