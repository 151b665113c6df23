import BookCatalog

/// The one way the model runs a store call. Every effect takes its ticket before the call is
/// awaited and passes the gate after it, before anything reaches the screen: an effect
/// written through `launch` or `perform` cannot forget the check.
///
/// The sequence, for each request: `begin` (the ticket, owning its slot) → the store call →
/// `conclude` (the request's fate, recorded in the log) → `witness` (for any answer of the
/// current session, so a revision it saw still lifts the rows) → `publish` or `fail` (only
/// if the request is still the newest of its slot in the current session).
extension BookshelfModel {
    /// Starts an effect in its own task and returns its request number.
    @discardableResult
    func launch<Value: Sendable>(
        _ slot: PublicationSlot, _ kind: RequestKind, showsBusy: Bool = false,
        _ call: @escaping @Sendable () async throws -> Value,
        witness: @escaping @MainActor (Value) -> Void = { _ in },
        logged: @escaping @MainActor (Value) -> Bool = { _ in true },
        publish: @escaping @MainActor (Value, RequestTicket) async -> Void,
        fail: @escaping @MainActor (any Error, RequestTicket) async -> Void
    ) -> Int {
        let ticket = begin(slot, kind)
        if showsBusy { self.showsBusy.insert(ticket.identity) }
        spawn(ticket) { [self] in
            await perform(ticket, call, witness: witness, logged: logged, publish: publish, fail: fail)
        }
        return ticket.identity.request
    }

    /// Runs the next request of an effect that is still running (a save's conflict fetch or
    /// reconciliation), in the same task. Call it only from a `publish` or `fail` handler.
    func performChained<Value: Sendable>(
        after previous: RequestTicket, _ kind: RequestKind,
        _ call: @escaping @Sendable () async throws -> Value,
        witness: @escaping @MainActor (Value) -> Void = { _ in },
        publish: @escaping @MainActor (Value, RequestTicket) async -> Void,
        fail: @escaping @MainActor (any Error, RequestTicket) async -> Void
    ) async {
        let ticket = begin(previous.slot, kind)
        running[ticket.identity.request] = running[previous.identity.request]
        changed()
        await perform(ticket, call, witness: witness, logged: { _ in true }, publish: publish, fail: fail)
    }

    private func perform<Value: Sendable>(
        _ ticket: RequestTicket,
        _ call: @Sendable () async throws -> Value,
        witness: @MainActor (Value) -> Void,
        logged: @MainActor (Value) -> Bool,
        publish: @MainActor (Value, RequestTicket) async -> Void,
        fail: @MainActor (any Error, RequestTicket) async -> Void
    ) async {
        let answer: Result<Value, any Error>
        do { answer = .success(try await call()) } catch { answer = .failure(error) }
        switch answer {
        case let .success(value):
            let mayPublish = conclude(ticket, record: logged(value))
            guard ticket.identity.session == session else { return }
            if StoreReachability.answerReachesTheStore(ticket.kind),
                reachability.learn(true, from: ticket.identity.request)
            {
                forgetUnreachableNotes()
            }
            witness(value)
            if mayPublish { await publish(value, ticket) }
        case let .failure(error):
            if error is PasswordNeededAgain { connectionNeedsPassword(noticedBy: ticket) }
            guard conclude(ticket, error: error) else { return }
            await fail(error, ticket)
        }
    }

    // MARK: Tickets

    private func begin(_ slot: PublicationSlot, _ kind: RequestKind) -> RequestTicket {
        lastRequest += 1
        let identity = PublicationIdentity(session: session, request: lastRequest)
        owners[slot] = identity
        inFlight[identity] = kind
        return RequestTicket(identity: identity, slot: slot, kind: kind, started: clock.now())
    }

    /// Runs `body` as the effect of `ticket`; a search or page effect replaces (and cancels)
    /// the previous one of its slot.
    private func spawn(_ ticket: RequestTicket, _ body: @escaping @MainActor @Sendable () async -> Void) {
        let number = ticket.identity.request
        let task = Task { @MainActor [weak self] in
            await body()
            self?.effectEnded(number)
        }
        running[number] = task
        if ticket.slot == .search || ticket.slot == .page {
            cancellable[ticket.slot]?.cancel()
            cancellable[ticket.slot] = task
        }
    }

    private func effectEnded(_ number: Int) {
        let task = running[number]
        running = running.filter { $0.value != task }
        continueAfterSave()
        changed()
    }

    /// The commit boundary: ends `ticket`'s wait, records its fate and says whether it may
    /// publish, which it may only if it is still the newest request of its slot in the
    /// current session.
    private func conclude(_ ticket: RequestTicket, error: (any Error)? = nil, record: Bool = true) -> Bool {
        inFlight[ticket.identity] = nil
        showsBusy.remove(ticket.identity)
        let cancelled = error is CancellationError
        let fate: RequestFate =
            if ticket.identity.session != session { .droppedOldSession } else if owners[ticket.slot] != ticket.identity
            { cancelled ? .cancelled : .droppedStale } else if cancelled { .cancelled } else if let error {
                .failed(FailureKind(error))
            } else { .published }
        if record {
            let trace = RequestTrace(
                request: ticket.identity.request, session: ticket.identity.session, kind: ticket.kind,
                started: ticket.started, storeTime: clock.now() - ticket.started, fate: fate)
            log.record(trace)
            onTrace?(trace)
        }
        return fate.wasShown
    }

    // MARK: Who owns what

    func isPending(_ slot: PublicationSlot) -> Bool {
        guard let owner = owners[slot] else { return false }
        return inFlight[owner] != nil
    }

    func pendingKind(_ slot: PublicationSlot) -> RequestKind? {
        owners[slot].flatMap { inFlight[$0] }
    }
}
