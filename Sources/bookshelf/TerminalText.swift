import TerminalSafeText

/// Strings from a store (or a user's file) are data: before they reach a terminal, every
/// unsafe character (`TerminalSafety.isUnsafe`: C0, DEL, C1, bidirectional marks and
/// overrides, line and paragraph separators) is neutralised, so a title can never move the
/// cursor, recolour the screen, reorder or break a line.
enum TerminalText {
    /// Shown in place of each control character: visible, and never a column separator.
    static let replacement: Unicode.Scalar = "\u{FFFD}"

    static func sanitized(_ text: String) -> String {
        TerminalSafety.replacingUnsafe(in: text) { _ in replacement }
    }
}
