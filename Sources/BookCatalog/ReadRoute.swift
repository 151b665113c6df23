import Locking

/// Which server answered a read, for a store that serves reads from more than one (a primary
/// and its standbys). A store with one server never gives one.
public struct ReadRoute: Sendable, Hashable {
    /// The server as the store names it (host and port). It comes from a connection string:
    /// data, sanitised like any store string before it reaches a terminal.
    public let server: String
    /// A standby answered.
    public let servedByStandby: Bool
    /// The read was meant for a standby that could not serve it (behind the session, gone):
    /// the primary answered.
    public let fellBack: Bool

    public init(server: String, servedByStandby: Bool, fellBack: Bool) {
        self.server = server
        self.servedByStandby = servedByStandby
        self.fellBack = fellBack
    }
}

/// Where a store notes the route of the read it is answering, so that the caller learns which
/// server answered *its* read. A store serves many calls at once, so "the last read's server"
/// read after the answer may belong to another call; a note bound to the caller's task for
/// the length of one call (a task-local value, as tracing spans are carried) cannot.
public final class ReadRouteNote: Sendable {
    /// The note of the call in progress in this task, if its caller wants one.
    @TaskLocal public static var current: ReadRouteNote?

    private let noted = Locked<ReadRoute?>(nil)

    public init() {}

    /// The route of the read that answered last within the call (a call may read more than once).
    public var route: ReadRoute? { noted.withLock { $0 } }

    public func note(_ route: ReadRoute) { noted.withLock { $0 = route } }
}
