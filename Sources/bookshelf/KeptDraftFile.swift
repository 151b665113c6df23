import BookCatalog
import BookshelfModel

/// The text of one kept draft (`KeptDraftFiles`): a header line, then one `name value` line a
/// field, a value's backslashes and line breaks escaped. Written by this program, but read back
/// as a file anyone could have written: every line is checked, and anything unexpected makes
/// the whole file unreadable rather than half read.
struct KeptDraftFile: Equatable {
    static let header = "bookshelf kept draft 1"
    /// Twice every field at its longest (a base and a draft), four bytes a character, every
    /// byte escaped, still fits with room to spare: a larger file is not one of ours.
    static let maximumBytes = 1 << 20

    /// Which catalog the draft belongs to (see `KeptDraftFiles.catalog`).
    let catalog: String
    /// The process that kept it: while that process still runs, the draft is its open one.
    let owner: Int32
    let draft: KeptDraft

    /// Field names in the file, in the form's order.
    private static let fieldNames: [(EditorField, String)] = [
        (.title, "title"), (.author, "author"), (.isbn, "isbn"), (.year, "year"), (.publisher, "publisher"),
        (.series, "series"), (.seriesIndex, "series-index"), (.tags, "tags"), (.notes, "notes"),
    ]

    var text: String {
        var lines = [
            Self.header, "catalog " + Self.escaped(catalog), "account " + Self.escaped(draft.account),
            "book \(draft.bookID)", "owner \(owner)", "base-revision \(draft.base.revision)",
        ]
        let base = BookDraft(draft.base)
        for (field, name) in Self.fieldNames { lines.append("base-\(name) " + Self.escaped(base[field])) }
        for (field, name) in Self.fieldNames { lines.append("draft-\(name) " + Self.escaped(draft.draft[field])) }
        return lines.joined(separator: "\n") + "\n"
    }

    init(catalog: String, owner: Int32, draft: KeptDraft) {
        self.catalog = catalog
        self.owner = owner
        self.draft = draft
    }

    /// Reads a file's bytes (at most `maximumBytes`: the caller reads no more), or says what
    /// is wrong with them.
    init(bytes: [UInt8]) throws(Unreadable) {
        guard bytes.count <= Self.maximumBytes else { throw Unreadable("larger than \(Self.maximumBytes) bytes") }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw Unreadable("not UTF-8 text") }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        guard lines.first == Substring(Self.header) else { throw Unreadable("not a kept draft of this version") }
        var values: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let space = line.firstIndex(of: " ") else { throw Unreadable("a line without a value") }
            let name = String(line[..<space])
            guard Self.knownNames.contains(name) else { throw Unreadable("an unknown line") }
            guard values[name] == nil else { throw Unreadable("\(name) given twice") }
            values[name] = try Self.unescaped(line[line.index(after: space)...])
        }
        func value(_ name: String) throws(Unreadable) -> String {
            guard let value = values[name] else { throw Unreadable("no \(name)") }
            return value
        }
        func number(_ name: String) throws(Unreadable) -> Int {
            guard let number = Int(try value(name)), number >= 0 else { throw Unreadable("\(name) is not a number") }
            return number
        }
        var base = BookDraft(title: "", author: "")
        var draft = BookDraft(title: "", author: "")
        for (field, name) in Self.fieldNames {
            base[field] = try value("base-" + name)
            draft[field] = try value("draft-" + name)
            // A field of one line never holds a line break in the editor.
            if field != .notes, draft[field].contains(where: \.isNewline) {
                throw Unreadable("a line break in the draft's \(field.name)")
            }
        }
        let owner = try number("owner")
        guard let ownerID = Int32(exactly: owner) else { throw Unreadable("owner is not a process id") }
        guard
            let kept = KeptDraft(
                account: try value("account"), bookID: try number("book"), baseRevision: try number("base-revision"),
                baseFields: base, draft: draft)
        else { throw Unreadable("the revision it is based on is not a valid book") }
        self.init(catalog: try value("catalog"), owner: ownerID, draft: kept)
    }

    private static let knownNames: Set<String> = Set(
        ["catalog", "account", "book", "owner", "base-revision"]
            + fieldNames.flatMap { ["base-" + $0.1, "draft-" + $0.1] })

    private static func escaped(_ value: String) -> String {
        var result = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func unescaped(_ value: Substring) throws(Unreadable) -> String {
        var result = ""
        var scalars = value.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\\" else {
                guard scalar != "\r" else { throw Unreadable("a bare carriage return") }
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalars.next() {
            case "\\"?: result += "\\"
            case "n"?: result += "\n"
            case "r"?: result += "\r"
            default: throw Unreadable("an unknown escape")
            }
        }
        return result
    }

    /// Why a file cannot be read as a kept draft.
    struct Unreadable: Error, Equatable, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
