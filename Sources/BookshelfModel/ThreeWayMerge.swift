import BookCatalog

/// One field both sides changed, to different text.
public struct FieldConflict: Equatable, Sendable {
    public let field: EditorField
    public let base: String
    public let theirs: String
    public let mine: String
}

/// A three-way merge of a draft with someone else's newer revision, field by field: a field
/// only one side changed takes that side's text; a field both changed to the same value
/// takes it; a field both changed differently is a conflict (the merge keeps mine there).
/// Two fields merge finer than whole: tags as sets (`TagMerge`), never in conflict, and notes
/// by line (`LineMerge`), in conflict only where both changed the same lines.
struct ThreeWayMerge: Equatable {
    /// The merged fields, with mine where they conflict.
    let merged: BookDraft
    let conflicts: [FieldConflict]
    /// The fields their revision changed against the base.
    let theyChanged: [EditorField]

    init(base: BookRecord, theirs: BookRecord, mine: BookDraft) {
        let baseDraft = BookDraft(base), theirDraft = BookDraft(theirs)
        var merged = mine
        var conflicts: [FieldConflict] = []
        var theyChanged: [EditorField] = []
        for field in EditorField.allCases {
            let (old, their, my) = (baseDraft[field], theirDraft[field], mine[field])
            guard their != old else { continue }
            theyChanged.append(field)
            // What I typed is compared as it would be saved: "0-14-143951-3" is the ISBN I
            // was given, not a change of it.
            let myValue = DraftCheck.canonical(field, of: my)
            if myValue == old {
                merged[field] = their
            } else if myValue == their {
                merged[field] = their
            } else if field == .tags, let tags = TagMerge(base: old, theirs: their, mine: my) {
                merged[field] = tags.merged
            } else if field == .notes, let lines = LineMerge.merge(base: old, theirs: their, mine: my) {
                merged[field] = lines
            } else {
                conflicts.append(FieldConflict(field: field, base: old, theirs: their, mine: my))
            }
        }
        self.merged = merged
        self.conflicts = conflicts
        self.theyChanged = theyChanged
    }
}

/// Tags merged as sets, compared folded as the store compares them: a tag either side added
/// is kept, a tag either side removed is removed.
struct TagMerge {
    let merged: String

    /// Nil when one of the three is not a valid list of tags (mine as typed, say): then the
    /// field merges as text.
    init?(base: String, theirs: String, mine: String) {
        guard let base = try? BookValidation.tags(text: base), let theirs = try? BookValidation.tags(text: theirs),
            let mine = try? BookValidation.tags(text: mine)
        else { return nil }
        let folded = { (tags: [String]) in Set(tags.map(SearchTerms.fold)) }
        let (old, their, my) = (folded(base), folded(theirs), folded(mine))
        let kept = old.intersection(their).intersection(my).union(their.subtracting(old)).union(my.subtracting(old))
        // Mine as I wrote them first, where both sides wrote a tag.
        let written = (mine + theirs + base).filter { kept.contains(SearchTerms.fold($0)) }
        merged = ((try? BookValidation.tags(written)) ?? written).joined(separator: ", ")
    }
}

extension EditorField {
    /// The field's name inside a sentence: "title", "ISBN", "series index".
    public var name: String { self == .isbn ? label : label.lowercased() }
}

/// What the status line says once an automatic merge has been saved.
struct MergeNote: Equatable {
    /// Their newest revision merged so far.
    var revision: Int
    /// Every field someone else changed, over all the merges of one save.
    var fields: [EditorField]
    /// Who saved the merged revisions, oldest first, each once; empty when the store does not
    /// say (or said for none of them).
    var accounts: [String] = []
    /// Some merged revision's account is unknown (no history, or a revision no account made).
    var someoneUnnamed = false

    /// `savedBy`: the account of each revision merged this time, nil where the store does not
    /// know; empty when it gave no history at all.
    func adding(_ merge: ThreeWayMerge, theirs: BookRecord, savedBy: [String?] = []) -> MergeNote {
        var names = accounts
        for case let name? in savedBy where !names.contains(name) { names.append(name) }
        return MergeNote(
            revision: theirs.revision,
            fields: EditorField.allCases.filter { fields.contains($0) || merge.theyChanged.contains($0) },
            accounts: names,
            someoneUnnamed: someoneUnnamed || savedBy.isEmpty || savedBy.contains(nil))
    }

    /// "the title", "the title and the tags", "the ISBN, the year and the notes".
    static func describe(_ fields: [EditorField]) -> String {
        let names = fields.map { "the " + $0.name }
        guard let last = names.last else { return "" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " and " + last
    }

    /// "bob", "bob and carol", "bob, carol and someone else"; "someone else" when no name is known.
    var savers: String {
        // Names come from the store: they are data, sanitised where they reach the terminal.
        let names = accounts + (someoneUnnamed && !accounts.isEmpty ? ["someone else"] : [])
        guard let last = names.last else { return "someone else" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " and " + last
    }

    // A revision that changed no field (a save of identical text, by an older program) is
    // said as such: "they changed ." would name nothing.
    // The revision is said as the store says its revisions (`RevisionStyle`): on a Calibre
    // library the time of the change, never calibre's microseconds as a number.
    func merged(_ revisions: RevisionStyle) -> String {
        guard !fields.isEmpty else {
            return "Saved over \(revisions.basis(revision)) by \(savers), which changed no field."
        }
        return "Merged with \(revisions.basis(revision)) by \(savers): they changed \(Self.describe(fields))."
    }

    func alreadyThere(_ revisions: RevisionStyle) -> String {
        let theirs = "\(revisions.capitalizedBasis(revision)) by \(savers)"
        guard !fields.isEmpty else { return "\(theirs) already had your changes." }
        return "\(theirs) already had your changes (they changed \(Self.describe(fields)))."
    }
}
