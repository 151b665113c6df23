import BookCatalog

/// One field both sides changed, to different text.
public struct FieldConflict: Equatable, Sendable {
    public let field: EditorField
    public let base: String
    public let theirs: String
    public let mine: String
}

/// A three-way merge of a draft with someone else's newer revision, field by field: a field
/// only one side changed takes that side's text; a field both changed to the same text
/// takes it; a field both changed differently is a conflict (the merge keeps mine there).
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
            if my == old {
                merged[field] = their
            } else if my != their {
                conflicts.append(FieldConflict(field: field, base: old, theirs: their, mine: my))
            }
        }
        self.merged = merged
        self.conflicts = conflicts
        self.theyChanged = theyChanged
    }
}

/// What the status line says once an automatic merge has been saved.
struct MergeNote: Equatable {
    /// Their newest revision merged so far.
    var revision: Int
    /// Every field someone else changed, over all the merges of one save.
    var fields: [EditorField]

    func adding(_ merge: ThreeWayMerge, theirs: BookRecord) -> MergeNote {
        MergeNote(revision: theirs.revision, fields: EditorField.allCases.filter {
            fields.contains($0) || merge.theyChanged.contains($0)
        })
    }

    static func describe(_ fields: [EditorField]) -> String {
        fields.map { $0 == .title ? "the title" : "the author" }.joined(separator: " and ")
    }

    // A revision that changed no field (a save of identical text, by an older program) is
    // said as such: "they changed ." would name nothing.
    var merged: String {
        guard !fields.isEmpty else {
            return "Saved over revision \(revision) by someone else, which changed no field."
        }
        return "Merged with revision \(revision) by someone else: they changed \(Self.describe(fields))."
    }

    var alreadyThere: String {
        guard !fields.isEmpty else { return "Revision \(revision) by someone else already had your changes." }
        return "Revision \(revision) by someone else already had your changes (they changed \(Self.describe(fields)))."
    }
}
