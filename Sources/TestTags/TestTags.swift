import Testing

/// What a test needs beyond its own process, as Swift Testing tags. `Scripts/test` runs the
/// tiers by these tags (`Scripts/test fast` runs what has none); `TierRuleTests` fails when a
/// suite starts a server, tmux or a child process without the tag that says so.
///
/// Tags are given on the `@Suite` attribute only, never on a single `@Test`: `swift test`
/// filters by suite name, so the tier of a test is its suite's (split a suite that mixes).
extension Tag {
    /// Starts or uses a PostgreSQL server (the shared scratch cluster or a private one).
    @Tag public static var postgres: Self
    /// Drives a real terminal: tmux on a private socket.
    @Tag public static var tmux: Self
    /// Spawns a child process: the built executables, a server, a shell, a tool.
    @Tag public static var process: Self
    /// Enumerates orderings past a few thousand cases.
    @Tag public static var exhaustive: Self
    /// Takes over about two seconds on its own, for any other reason.
    @Tag public static var slow: Self
}
