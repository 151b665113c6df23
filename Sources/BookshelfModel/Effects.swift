import BookCatalog

/// One store call and what to do with its answer (Bubble Tea's `Cmd`): the unit the runner
/// drives. Its handlers are synchronous: they change the model and may return the next effect
/// of the same chain (a save's conflict fetch, a search's count). Being synchronous, a handler
/// cannot await a store call itself: every call goes through the runner, and so through the gate.
struct Effect: Sendable {
    let kind: RequestKind
    /// The store call, the gate and the handler that the answer reaches; returns the next effect.
    fileprivate let step: @MainActor @Sendable (BookshelfModel, RequestTicket) async -> Effect?

    /// - Parameters:
    ///   - witness: sees every answer of the current session, stale or not, so that a revision
    ///     it saw still lifts the rows.
    ///   - logged: whether an answer goes in the request log (failures always do).
    ///   - source: what answered, when the answer says (a search's page): the log keeps it
    ///     for a published answer, for F4 and `--trace`.
    ///   - publish: handles an answer that passed the gate; returns the next effect, if any.
    ///   - fail: handles a failure that passed the gate; returns the next effect, if any.
    init<Value: Sendable>(
        _ kind: RequestKind,
        _ call: @escaping @Sendable () async throws -> Value,
        witness: @escaping @MainActor @Sendable (Value) -> Void = { _ in },
        logged: @escaping @MainActor @Sendable (Value) -> Bool = { _ in true },
        source: @escaping @MainActor @Sendable (Value) -> SearchAnswerSource? = { _ in nil },
        publish: @escaping @MainActor @Sendable (Value, RequestTicket) -> Effect?,
        fail: @escaping @MainActor @Sendable (any Error, RequestTicket) -> Effect? = { _, _ in nil }
    ) {
        self.kind = kind
        step = { model, ticket in
            // A store that serves reads from several servers notes which one answered this call.
            let route = ReadRouteNote()
            let answer: Result<Value, any Error>
            do {
                answer = .success(try await ReadRouteNote.$current.withValue(route) { try await call() })
            } catch { answer = .failure(error) }
            return model.pass(
                answer, of: ticket, route: route.route, witness: witness, logged: logged, source: source,
                publish: publish, fail: fail)
        }
    }
}

/// The one way the model runs a store call. Every effect takes its ticket before the call is
/// awaited and passes the gate after it, before anything reaches the screen: an effect
/// written through `launch` cannot forget the check.
///
/// The sequence, for each request: `begin` (the ticket, owning its slot) → the store call →
/// `conclude` (the request's fate, recorded in the log) → `witness` (for any answer of the
/// current session, so a revision it saw still lifts the rows) → `publish` or `fail` (only
/// if the request is still the newest of its slot in the current session). If the handler
/// returns a next effect, the runner begins it as the next request of the same slot, in the
/// same task, and goes round again; a stale answer reaches no handler, so it ends the chain.
extension BookshelfModel {
    /// Starts an effect, and the chain its handlers return, in its own task; returns the
    /// request number of its first request.
    @discardableResult
    func launch(_ slot: PublicationSlot, showsBusy: Bool = false, _ effect: Effect) -> Int {
        let ticket = begin(slot, effect.kind)
        if showsBusy { self.showsBusy.insert(ticket.identity) }
        spawn(ticket) { [self] in await run(effect, from: ticket) }
        return ticket.identity.request
    }

    /// Drives a chain: each effect's call, gate and handler, then the effect its handler returned.
    private func run(_ first: Effect, from firstTicket: RequestTicket) async {
        var effect = first
        var ticket = firstTicket
        while let next = await effect.step(self, ticket) {
            let following = begin(ticket.slot, next.kind)
            running[following.identity.request] = running[ticket.identity.request]
            changed()
            effect = next
            ticket = following
        }
    }

    /// The gate between a store call's answer and its handler.
    fileprivate func pass<Value>(
        _ answer: Result<Value, any Error>,
        of ticket: RequestTicket,
        route: ReadRoute?,
        witness: (Value) -> Void,
        logged: (Value) -> Bool,
        source: (Value) -> SearchAnswerSource?,
        publish: (Value, RequestTicket) -> Effect?,
        fail: (any Error, RequestTicket) -> Effect?
    ) -> Effect? {
        switch answer {
        case let .success(value):
            let mayPublish = conclude(ticket, record: logged(value), answeredBy: route, source: source(value))
            guard ticket.identity.session == session else { return nil }
            if StoreReachability.answerReachesTheStore(ticket.kind),
                reachability.learn(true, from: ticket.order)
            {
                forgetUnreachableNotes()
            }
            witness(value)
            noticeLostSaves()
            return mayPublish ? publish(value, ticket) : nil
        case let .failure(error):
            if error is PasswordNeededAgain { connectionNeedsPassword(noticedBy: ticket) }
            guard conclude(ticket, error: error) else { return nil }
            return fail(error, ticket)
        }
    }

    // MARK: Tickets

    /// A request the log always records takes the next number a user sees (F4, `--trace`)
    /// when it starts. A background request (`RequestKind.isLoggedWhenItStarts`) takes a number
    /// below zero, which nobody sees, and the next visible number only if its answer is logged,
    /// so that the visible numbers have no gaps.
    private func begin(_ slot: PublicationSlot, _ kind: RequestKind) -> RequestTicket {
        lastOrder += 1
        let request: Int
        if kind.isLoggedWhenItStarts {
            lastRequest += 1
            request = lastRequest
        } else {
            lastBackgroundRequest -= 1
            request = lastBackgroundRequest
        }
        let identity = PublicationIdentity(session: session, request: request)
        let ticket = RequestTicket(identity: identity, slot: slot, kind: kind, started: clock.now(), order: lastOrder)
        owners[slot] = identity
        inFlight[identity] = ticket
        return ticket
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
    /// `answeredBy` is the server that answered and `source` what answered, when the store says;
    /// they are kept only for an answer that is shown, so neither of a stale answer is published.
    private func conclude(
        _ ticket: RequestTicket, error: (any Error)? = nil, record: Bool = true, answeredBy: ReadRoute? = nil,
        source: SearchAnswerSource? = nil
    ) -> Bool {
        inFlight[ticket.identity] = nil
        showsBusy.remove(ticket.identity)
        let cancelled = error is CancellationError
        let fate: RequestFate =
            if ticket.identity.session != session { .droppedOldSession } else if owners[ticket.slot] != ticket.identity
            { cancelled ? .cancelled : .droppedStale } else if cancelled { .cancelled } else if let error {
                .failed(FailureKind(error))
            } else { .published }
        if record {
            var number = ticket.identity.request
            if number < 0 {
                lastRequest += 1
                number = lastRequest
            }
            let trace = RequestTrace(
                request: number, session: ticket.identity.session, kind: ticket.kind,
                started: ticket.started, storeTime: clock.now() - ticket.started, fate: fate,
                answeredBy: fate == .published ? answeredBy : nil, source: fate == .published ? source : nil)
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
        owners[slot].flatMap { inFlight[$0]?.kind }
    }
}
