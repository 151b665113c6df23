/// A new version of a stored function made from the previous version's text by edits, so
/// that the parts left alone cannot drift apart. Each edit's old text must occur exactly once:
/// a change to the earlier text then stops the migration's first use (every test that sets up
/// a catalog) instead of dropping an edit silently.
enum SQLTextEdits {
    static func applying(_ edits: [(old: String, new: String)], to text: String, of name: String) -> String {
        var result = text
        for (old, new) in edits {
            let pieces = result.components(separatedBy: old)
            precondition(pieces.count == 2, "\(name) changed: \(old)")
            result = pieces.joined(separator: new)
        }
        return result
    }
}
