import Foundation

/// How a store's revision reads to a user: a count of saves, or (a Calibre library's
/// `last_modified`) the time of the book's last change, in microseconds since 1970. The store
/// says which (`CatalogConnector.revisionStyle`); the model's messages and the screen say every
/// revision through it, so that a user never reads calibre's microseconds as a number.
public enum RevisionStyle: Equatable, Sendable {
    case counter
    case lastModified

    /// "revision 7", or "changed 2026-12-06 14:02:07 UTC" (UTC, as the history pane's times).
    public func text(_ revision: Int) -> String {
        switch self {
        case .counter: "revision \(revision)"
        case .lastModified: "changed \(Self.timestamp(Self.date(revision))) UTC"
        }
    }

    /// What a draft, a restore or a merge is based on: "revision 7", or "the book as changed
    /// 2026-12-06 14:02:07 UTC".
    public func basis(_ revision: Int) -> String {
        switch self {
        case .counter: text(revision)
        case .lastModified: "the book as \(text(revision))"
        }
    }

    /// `basis` to begin a sentence: "Revision 7", "The book as changed 2026-12-06 14:02:07 UTC".
    public func capitalizedBasis(_ revision: Int) -> String {
        let basis = basis(revision)
        return basis.prefix(1).uppercased() + basis.dropFirst()
    }

    /// "2026-12-06 14:02:07": a time in UTC to the second, as every pane shows one.
    public static func timestamp(_ date: Date) -> String {
        date.formatted(
            Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day().time(includingFractionalSeconds: false)
                .dateSeparator(.dash).timeSeparator(.colon).dateTimeSeparator(.space))
    }

    private static func date(_ microseconds: Int) -> Date {
        Date(timeIntervalSince1970: Double(microseconds.quotient(dividingBy: 1_000_000)))
    }
}

extension Int {
    /// Whole seconds of microseconds, rounded down also before 1970.
    fileprivate func quotient(dividingBy divisor: Int) -> Int {
        self >= 0 ? self / divisor : -((-self + divisor - 1) / divisor)
    }
}
