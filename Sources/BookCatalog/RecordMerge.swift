/// A three-way merge of two records of one book that both started from `base`, field by field,
/// by the editor's rules: a field only one side changed takes that side's value; a field both
/// changed to the same value takes it; tags merge as sets (a tag either side added is kept, a
/// tag either side removed is removed) and notes by line (`LineMerge`); any other field both
/// changed differently is a conflict, where the merge keeps theirs.
public struct RecordMerge: Sendable, Equatable {
    /// `theirs` with the fields merged in (theirs' revision: the one a save of it names).
    public let merged: BookRecord
    /// The fields both sides changed differently, in the form's order.
    public let conflicts: [BookField]

    public init(base: BookRecord, theirs: BookRecord, mine: BookRecord) {
        var conflicts: [BookField] = []
        let (was, now, yours) = (base.details, theirs.details, mine.details)
        let title = Self.field(base.title, theirs.title, mine.title, .title, &conflicts)
        let author = Self.field(base.author, theirs.author, mine.author, .author, &conflicts)
        let details = BookDetails(
            isbn: Self.field(was.isbn, now.isbn, yours.isbn, .isbn, &conflicts),
            year: Self.field(was.year, now.year, yours.year, .year, &conflicts),
            publisher: Self.field(was.publisher, now.publisher, yours.publisher, .publisher, &conflicts),
            series: Self.field(was.series, now.series, yours.series, .series, &conflicts),
            seriesIndex: Self.field(was.seriesIndex, now.seriesIndex, yours.seriesIndex, .seriesIndex, &conflicts),
            tags: Self.field(was.tags, now.tags, yours.tags, .tags, &conflicts, finer: TagSetMerge.merge),
            notes: Self.field(was.notes, now.notes, yours.notes, .notes, &conflicts, finer: LineMerge.merge))
        merged = BookRecord(id: theirs.id, title: title, revision: theirs.revision, author: author, details: details)
        self.conflicts = BookField.allCases.filter(conflicts.contains)
    }

    private static func field<Value: Equatable>(
        _ old: Value, _ their: Value, _ my: Value, _ field: BookField, _ conflicts: inout [BookField],
        finer: ((Value, Value, Value) -> Value?)? = nil
    ) -> Value {
        if their == old { return my }
        if my == old || my == their { return their }
        if let finer, let merged = finer(old, their, my) { return merged }
        conflicts.append(field)
        return their
    }
}

/// Tags merged as sets, compared folded as stores compare them: a tag either side added is
/// kept, a tag either side removed is removed; mine as I wrote them first where both wrote one.
public enum TagSetMerge {
    /// The merged set in the order a store keeps it; nil when it breaks the tags' rule (more
    /// than `BookValidation.maximumTagCount`), which leaves the field in conflict.
    public static func merge(base: [String], theirs: [String], mine: [String]) -> [String]? {
        let folded = { (tags: [String]) in Set(tags.map(SearchTerms.fold)) }
        let (old, their, my) = (folded(base), folded(theirs), folded(mine))
        let kept = old.intersection(their).intersection(my).union(their.subtracting(old)).union(my.subtracting(old))
        return try? BookValidation.tags((mine + theirs + base).filter { kept.contains(SearchTerms.fold($0)) })
    }
}
