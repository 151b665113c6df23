import Foundation

/// A catalog's schema as pg_dump writes it, made comparable: the lines that change from one
/// dump to the next (pg_dump's versions, its session settings, the `\restrict` key) are left
/// out, and the catalog's own group roles, named after its database, are written as
/// `bookshelf_CATALOG_reader` and `bookshelf_CATALOG_editor`.
struct PostgresSchemaDump: Equatable {
    /// The dump's text, as `Schema/current.sql` holds it (after its own header).
    let text: String

    /// `groups`: the catalog's reader and editor group roles (`bookshelf.groups`).
    init(pgDump: String, groups: (reader: String, editor: String)) {
        var lines: [String] = []
        for line in pgDump.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("-- Dumped from") || line.hasPrefix("-- Dumped by") || line.hasPrefix("\\restrict")
                || line.hasPrefix("\\unrestrict") || line.hasPrefix("SET ")
                || line.hasPrefix("SELECT pg_catalog.set_config('search_path'")
            {
                continue
            }
            // One blank line between objects at most.
            if line.isEmpty, lines.last?.isEmpty ?? true { continue }
            // pg_dump lists a policy's roles as pg_roles gives them, in no set order (its query
            // has no ORDER BY), so where the server put each group's row decides it: the two
            // groups are written in one order here.
            lines.append(
                String(line).replacingOccurrences(of: groups.reader, with: "bookshelf_CATALOG_reader")
                    .replacingOccurrences(of: groups.editor, with: "bookshelf_CATALOG_editor")
                    .replacingOccurrences(
                        of: "bookshelf_CATALOG_editor, bookshelf_CATALOG_reader",
                        with: "bookshelf_CATALOG_reader, bookshelf_CATALOG_editor"))
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        text = lines.joined(separator: "\n") + "\n"
    }

    init(text: String) { self.text = text }

    /// Each object pg_dump wrote, by its header (`Name: …; Type: …`), with its text.
    var objects: [(name: String, text: String)] {
        var objects: [(name: String, text: String)] = [("(before the first object)", "")]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("-- Name: ") {
                let name = line.dropFirst(3).components(separatedBy: "; Owner:")[0]
                objects.append((name, ""))
            }
            objects[objects.count - 1].text += line + "\n"
        }
        return objects
    }

    /// The first object that is not the same in both dumps, and how; nil when they are equal.
    func firstDifference(from other: PostgresSchemaDump) -> String? {
        let mine = objects
        let theirs = other.objects
        for index in 0..<max(mine.count, theirs.count) {
            guard index < mine.count else { return "\(theirs[index].name) is only in the second" }
            guard index < theirs.count else { return "\(mine[index].name) is only in the first" }
            if mine[index].name != theirs[index].name {
                return "\(mine[index].name) in the first where the second has \(theirs[index].name)"
            }
            if mine[index].text != theirs[index].text {
                return "\(mine[index].name) differs:\n--- first\n\(mine[index].text)--- second\n\(theirs[index].text)"
            }
        }
        return nil
    }
}
