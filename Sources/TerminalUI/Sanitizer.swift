import TerminalSafeText

/// Makes text from outside (a store, a file, the network) safe to put on a terminal.
///
/// Every scalar that a terminal would act on instead of print is replaced by a visible
/// stand-in, so the data is still recognisable but inert:
/// - C0 controls U+0000–U+001F become their Control Pictures (U+2400–U+241F):
///   ESC shows as `␛`, TAB as `␉`, LF as `␊`. An ANSI sequence `ESC [ 3 1 m` therefore
///   shows as `␛[31m` and can no longer change colours or move the cursor.
/// - DEL U+007F becomes `␡` (U+2421).
/// - C1 controls U+0080–U+009F (CSI, OSC, … in their 8-bit form), bidirectional
///   embeddings, overrides, isolates and marks (U+061C, U+200E, U+200F, U+202A–U+202E,
///   U+2066–U+2069) and the line/paragraph separators U+2028/U+2029 become U+FFFD `�`.
///
/// Which scalars are unsafe is `TerminalSafety.isUnsafe`, the one definition that validation
/// and the command line's output use too.
///
/// `Canvas` applies this to everything it draws, so a forgotten call cannot leak a
/// control character; calling it yourself is for measuring or storing display text.
public func sanitize(_ text: String) -> String {
    TerminalSafety.replacingUnsafe(in: text, with: TerminalSafety.picture(for:))
}
