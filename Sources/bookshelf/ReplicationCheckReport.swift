import PostgresCatalog

/// `bookshelf setup --check`: the replication set-up behind a connection string, one line per
/// host and per standby a primary streams to, then the verdict on failover, and a line when
/// LISTEN cannot be heard through the string (a pooler in transaction mode).
enum ReplicationCheckReport {
    static func print(_ connector: PostgresConnector, on console: Console) async throws -> ExitStatus {
        let report = await ReplicationReport.check(connector)
        // Said only when it cannot be heard: a pooler in transaction mode is the one to know of.
        let hearing = await ListenHearing.check(connector)
        let listenLine = hearing == .notHeard ? [hearing.description] : []
        if report.verdict == .singleServer, report.hosts.count == 1, let host = report.hosts.first {
            console.line(
                "\(place(host)): a single primary without standbys; there is nothing to fail over to, "
                    + "so no acknowledged save can be lost to a failover.")
            listenLine.forEach(console.line)
            return .success
        }
        for host in report.hosts {
            for line in lines(host, problem: report.problem(of: host)) { console.line(line) }
        }
        console.line(verdict(report.verdict))
        listenLine.forEach(console.line)
        guard report.hosts.contains(where: { if case .unreachable = $0.role { false } else { true } }) else {
            throw CommandFailure("no host of the connection string could be reached")
        }
        return .success
    }

    /// Host and port as the string names them; every text from a server or the string is shown safe.
    static func place(_ host: ReplicationHost) -> String {
        let name = host.host.isEmpty ? "the default host" : "host " + TerminalText.sanitized(host.host)
        return host.port.isEmpty ? name : name + " port " + TerminalText.sanitized(host.port)
    }

    /// `problem`: why reads must not be served by a standby (`ReplicationReport.problem(of:)`).
    static func lines(_ host: ReplicationHost, problem: String?) -> [String] {
        switch host.role {
        case let .unreachable(reason):
            return ["\(place(host)): not reachable (\(TerminalText.sanitized(reason)))"]
        case .standby:
            return ["\(place(host)): standby, " + (problem.map(TerminalText.sanitized) ?? "streaming from a primary")]
        case let .primary(primary):
            let head =
                "\(place(host)): primary, synchronous_commit = \(TerminalText.sanitized(primary.synchronousCommit)), "
                + "synchronous_standby_names = '\(TerminalText.sanitized(primary.synchronousStandbyNames))'"
            let none = primary.standbys.isEmpty ? ["  no standby streams from it"] : []
            return [head] + none + primary.standbys.map(line)
        }
    }

    static func line(_ standby: ReplicationStandby) -> String {
        let unknown = "unknown (needs pg_read_all_stats)"
        let lag =
            standby.replayLagBytes.map {
                "\($0) bytes" + (standby.replayLag.map { ", \(TerminalText.sanitized($0))" } ?? "")
            }
            ?? unknown
        return
            "  standby \(TerminalText.sanitized(standby.name)): state \(standby.state.map(TerminalText.sanitized) ?? unknown), "
            + "sync_state \(standby.syncState.map(TerminalText.sanitized) ?? unknown), replay lag \(lag)"
    }

    static func verdict(_ verdict: FailoverVerdict) -> String {
        switch verdict {
        case .singleServer:
            "A single primary without standbys: nothing to fail over to."
        case .noAcknowledgedSaveLost:
            "Synchronous: no acknowledged save can be lost on failover (a save is acknowledged once a synchronous "
                + "standby has it)."
        case .noAcknowledgedSaveLostButSavesWait:
            "Synchronous: no acknowledged save can be lost on failover, but saves wait now: no standby named in "
                + "synchronous_standby_names is connected."
        case let .acknowledgedSavesCanBeLost(reason):
            "Asynchronous: acknowledged saves can be lost on failover (\(TerminalText.sanitized(reason))). "
                + "Bookshelf tells the user of a lost save and keeps its text; for no loss at all, set "
                + "synchronous_commit = remote_apply and name a standby in synchronous_standby_names."
        case let .cannotTell(reason):
            "Cannot tell whether acknowledged saves can be lost on failover: \(TerminalText.sanitized(reason))."
        }
    }
}
