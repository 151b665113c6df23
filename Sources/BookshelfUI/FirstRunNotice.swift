import TerminalSafeText

/// What the first screen says when the app has just created the catalog it shows, with
/// sample books: the user should know where it is and that the books are not theirs.
public enum FirstRunNotice {
    /// `books` were added in all, `visible` of them in `scope`, the starting account's: the
    /// count the header shows, so the two never seem to disagree. Shorter forms drop the
    /// accounts, then the counts, so that a narrow screen still shows the whole path.
    public static func notice(path: String, books: Int, visible: Int, scope: String, accounts: [String]) -> Notice {
        var counts = "\(NumberText.grouped(books)) sample book\(books == 1 ? "" : "s")"
        if visible != books { counts += " (\(NumberText.grouped(visible)) in scope \(scope))" }
        let names =
            accounts.isEmpty ? "" : "; account\(accounts.count == 1 ? "" : "s") \(accounts.joined(separator: ", "))"
        return Notice(
            "Created \(path) with \(counts)\(names).",
            shorter: ["Created \(path) with \(counts).", "Created \(path) with sample books.", "Created \(path)."])
    }
}
