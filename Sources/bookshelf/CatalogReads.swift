import CommandLineOptions
import PostgresCatalog
import TerminalSafeText

#if canImport(Glibc)
    import Glibc
#endif

/// Where a PostgreSQL catalog's reads are served, by the first rule that applies:
/// `--reads`, then `BOOKSHELF_READS`, then the primary. Only the app and the commands that
/// read take the option; saves always go to the primary whatever it says.
enum CatalogReads {
    static let environmentVariable = "BOOKSHELF_READS"

    static let option = Option<PostgresReads>(
        "reads", value: "WHERE", completes: .choices(PostgresReads.allCases.map(\.rawValue)),
        help: "PostgreSQL: serve searches and loads from the primary (default) or a standby."
    ) { text throws(UsageError) in
        try parse(text, from: "--reads")
    }

    static let standbyWait = Option.integer(
        "standby-wait", value: "MS", in: 0...10_000,
        help: "With --reads standby: wait up to MS ms for a standby that lags, then read the primary (default 250).")

    /// The target with its reads set; `--reads` on an SQLite catalog is a mistake worth
    /// saying, while `BOOKSHELF_READS` set for other runs is not.
    static func apply(
        to target: CatalogTarget, _ arguments: ParsedArguments, environment: [String: String]
    ) throws(UsageError) -> CatalogTarget {
        let given = try arguments.value(option)
        let wait = try arguments.value(standbyWait)
        switch target {
        case .sqlite, .calibre:
            if given != nil { throw UsageError("--reads applies to PostgreSQL catalogs only") }
            if wait != nil { throw UsageError("--standby-wait applies to PostgreSQL catalogs only") }
            return target
        case var .postgres(connector):
            if let given {
                connector.reads = given
            } else if let text = environment[environmentVariable], !text.isEmpty {
                connector.reads = try parse(text, from: environmentVariable)
            }
            if let wait { connector.standbyWait = .milliseconds(wait) }
            return .postgres(connector)
        }
    }

    /// With `--trace FILE` and standby reads, a line in FILE for each read meant for a
    /// standby: which server answered, and whether it fell back to the primary. The file is
    /// opened for appending, as the app's own trace lines are, so neither overwrites the other.
    static func tracing(_ target: CatalogTarget, to path: String?) -> CatalogTarget {
        guard let path, case var .postgres(connector) = target, connector.reads == .standby else { return target }
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else { return target }
        connector.onReadRoute = { route in
            let line =
                "event=read server=\(route.server) served_by=\(route.servedByStandby ? "standby" : "primary")"
                + " fell_back=\(route.fellBack ? 1 : 0)\n"
            _ = StandardStream.write(line, to: descriptor)
        }
        return .postgres(connector)
    }

    private static func parse(_ text: String, from source: String) throws(UsageError) -> PostgresReads {
        guard let reads = PostgresReads(rawValue: text) else {
            let choices = PostgresReads.allCases.map(\.rawValue).joined(separator: " or ")
            throw UsageError("\(source) must be \(choices), not \"\(text.printable)\"")
        }
        return reads
    }

    /// For help texts.
    static let explanation = """
        With a PostgreSQL catalog of several hosts (postgresql://alice@db1,db2/books), saves go
        to the primary; --reads standby (or $\(environmentVariable)=standby) serves searches and
        loads from a standby, never older than what this session has seen or saved: a standby
        that lags is waited for up to 250 ms (--standby-wait), then the primary answers.
        """
}

extension CatalogTarget {
    /// `resolve`, with the reads `--reads` or `BOOKSHELF_READS` ask for.
    static func resolve(_ arguments: ParsedArguments, environment: [String: String]) throws(UsageError)
        -> CatalogTarget
    {
        let target = try resolve(option: arguments.value(CatalogOptions.db), environment: environment)
        return try CatalogReads.apply(to: target, arguments, environment: environment)
    }
}
