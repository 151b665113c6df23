import Foundation

/// How long the tests wait for another process. Under a sanitizer every instrumented binary
/// runs several times slower, so `Scripts/sanitize` sets `BOOKSHELF_TEST_TIME_SCALE` and the
/// waits stretch with it instead of failing from slowness alone. A wait is a deadline, never
/// a sleep: a test that passes ends as soon as what it waits for appears.
public enum TestTime {
    /// `BOOKSHELF_TEST_TIME_SCALE` (a number of at least 1), or 1.
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["BOOKSHELF_TEST_TIME_SCALE"],
            let value = Double(text), value >= 1
        else { return 1 }
        return value
    }()

    /// `duration` stretched by `scale`.
    public static func scaled(_ duration: Duration) -> Duration { duration * scale }
}
