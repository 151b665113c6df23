import TerminalUI

/// What the first screen says when the app has just created the catalog it shows, with
/// sample books: the user should know where it is and that the books are not theirs.
public enum FirstRunNotice {
    public static func text(path: String, books: Int, accounts: [String]) -> String {
        let count = "\(NumberText.grouped(books)) sample book\(books == 1 ? "" : "s")"
        let names = accounts.isEmpty ? "" : "; account\(accounts.count == 1 ? "" : "s") \(accounts.joined(separator: ", "))"
        return "Created \(path) with \(count)\(names)."
    }
}
