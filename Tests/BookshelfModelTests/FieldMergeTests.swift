import BookCatalog
import Testing
@testable import BookshelfModel

/// The merge of the fields beyond title and author, from cases worked by hand: tags as sets,
/// notes by line (diff3), the rest whole; and a merged save through the store.
@MainActor
@Suite struct FieldMergeTests {
    struct TagCase: CustomStringConvertible, Sendable {
        let base: String, theirs: String, mine: String, merged: String
        var description: String { "base [\(base)] theirs [\(theirs)] mine [\(mine)]" }
    }

    nonisolated static let tagCases: [TagCase] = [
        // Each adds one: both kept.
        TagCase(base: "a, b", theirs: "a, b, c", mine: "a, b, d", merged: "a, b, c, d"),
        // They removed b, I added d.
        TagCase(base: "a, b", theirs: "a", mine: "a, b, d", merged: "a, d"),
        // They removed a and added c, I removed b.
        TagCase(base: "a, b", theirs: "b, c", mine: "a", merged: "c"),
        // Both removed the same one, I added another.
        TagCase(base: "a, b", theirs: "a", mine: "a, z", merged: "a, z"),
        // Both added the same tag, written differently: once, as I wrote it.
        TagCase(base: "", theirs: "Rome", mine: "rome, war", merged: "rome, war"),
        // I removed every tag, they added one.
        TagCase(base: "a", theirs: "a, x", mine: "", merged: "x"),
        // Folded equal to the base is no change: "A" is still a.
        TagCase(base: "a, b", theirs: "a, b, c", mine: "A, b, d", merged: "A, b, c, d"),
    ]

    @Test(arguments: tagCases)
    func tagsMergeAsSets(_ tags: TagCase) {
        #expect(TagMerge(base: tags.base, theirs: tags.theirs, mine: tags.mine)?.merged == tags.merged)
    }

    struct LineCase: CustomStringConvertible, Sendable {
        let name: String, base: String, theirs: String, mine: String
        /// Nil: a conflict.
        let merged: String?
        var description: String { name }
    }

    nonisolated static let lineCases: [LineCase] = [
        LineCase(
            name: "changes to different lines", base: "1\n2\n3\n4", theirs: "1\nTWO\n3\n4", mine: "1\n2\n3\nFOUR",
            merged: "1\nTWO\n3\nFOUR"),
        LineCase(
            name: "the same change on both sides", base: "1\n2", theirs: "1\nX", mine: "1\nX", merged: "1\nX"),
        LineCase(
            name: "a line changed differently", base: "1\n2\n3", theirs: "1\nT\n3", mine: "1\nM\n3", merged: nil),
        LineCase(name: "different lines added at the end", base: "1", theirs: "1\nT", mine: "1\nM", merged: nil),
        LineCase(
            name: "a line removed, another added further on", base: "a\nb\nc\nd\ne", theirs: "a\nc\nd\ne",
            mine: "a\nb\nc\nd\nNEW\ne", merged: "a\nc\nd\nNEW\ne"),
        // As diff3: changes to neighbouring lines, with no unchanged line between, overlap.
        LineCase(name: "neighbouring lines", base: "1\n2\n3", theirs: "X\n2\n3", mine: "1\nY\n3", merged: nil),
        LineCase(name: "only they wrote notes", base: "", theirs: "new\nnotes", mine: "", merged: "new\nnotes"),
        LineCase(
            name: "a line added at the start and one at the end", base: "middle", theirs: "first\nmiddle",
            mine: "middle\nlast", merged: "first\nmiddle\nlast"),
        LineCase(
            name: "one removed a line the other changed", base: "1\n2\n3", theirs: "1\n3", mine: "1\nTWO\n3",
            merged: nil),
    ]

    @Test(arguments: lineCases)
    func notesMergeByLine(_ lines: LineCase) {
        #expect(LineMerge.merge(base: lines.base, theirs: lines.theirs, mine: lines.mine) == lines.merged)
    }

    // MARK: The whole record

    static let base = BookRecord(
        id: 1, title: "Old Title", revision: 1, author: "Old Author",
        details: BookDetails(year: 1900, publisher: "Old House", tags: ["history"], notes: "one\ntwo\nthree"))

    @Test func eachFieldMergesByItsOwnRule() {
        let theirs = BookRecord(
            id: 1, title: "Old Title", revision: 2, author: "Old Author",
            details: BookDetails(
                isbn: "9780141439518", year: 1901, publisher: "Old House", tags: ["history", "rome"],
                notes: "ONE\ntwo\nthree"))
        var mine = BookDraft(Self.base)
        mine.isbn = "0-14-143951-3"  // the ISBN they set, typed as an ISBN-10
        mine.publisher = "New House"
        mine.tags = "history, latin"
        mine.notes = "one\ntwo\nTHREE"
        let merge = ThreeWayMerge(base: Self.base, theirs: theirs, mine: mine)
        #expect(merge.conflicts.isEmpty)
        #expect(merge.theyChanged == [.isbn, .year, .tags, .notes])
        #expect(
            merge.merged
                == BookDraft(
                    title: "Old Title", author: "Old Author", isbn: "9780141439518", year: "1901",
                    publisher: "New House", tags: "history, latin, rome", notes: "ONE\ntwo\nTHREE"))
    }

    @Test func overlappingNotesAndADifferentYearAreConflictsShownWhole() {
        let theirs = BookRecord(
            id: 1, title: "Old Title", revision: 2, author: "Old Author",
            details: BookDetails(year: 1901, publisher: "Old House", tags: [], notes: "one\nTHEIRS\nthree"))
        var mine = BookDraft(Self.base)
        mine.year = "1902"
        mine.tags = "history, latin"
        mine.notes = "one\nMINE\nthree"
        let merge = ThreeWayMerge(base: Self.base, theirs: theirs, mine: mine)
        #expect(
            merge.conflicts == [
                FieldConflict(field: .year, base: "1900", theirs: "1901", mine: "1902"),
                FieldConflict(field: .notes, base: "one\ntwo\nthree", theirs: "one\nTHEIRS\nthree", mine: mine.notes),
            ])
        // Mine where both changed; the tags still merge (they removed history, I added latin).
        #expect(merge.merged.year == "1902" && merge.merged.notes == mine.notes && merge.merged.tags == "latin")
    }

    /// Through the store: my save conflicts, their revision is fetched, and the merge of every
    /// field is saved against it.
    @Test func aConflictingSaveIsMergedFieldByFieldAndSaved() async {
        let h = Harness(books: ["alice": [Self.base], "bob": []])
        await h.start()
        _ = h.model.openSelected()!
        await h.answer(.load, with: .deliver)
        h.model.setDraft(.tags, to: "history, latin")
        h.model.setDraft(.notes, to: "one\ntwo\nTHREE")
        let theirs = BookRecord(
            id: 1, title: "Old Title", revision: 2, author: "Old Author",
            details: BookDetails(
                year: 1900, publisher: "Old House", tags: ["history", "rome"], notes: "ONE\ntwo\nthree"))
        await h.remote.put(theirs)
        let save = h.model.save()!
        await h.remote.release(await h.nextCall(.save).number, .deliver)
        await h.release(await h.nextCall(.load).number, .deliver, request: save)
        guard let mergeSave = h.model.pendingRequests.last(where: { $0.kind == .save })?.request else {
            Issue.record("no merged save was sent")
            return
        }
        let call = await h.nextCall(.save)
        guard case let .save(request) = call.call else {
            Issue.record("expected a save")
            return
        }
        let merged = BookDetails(
            year: 1900, publisher: "Old House", tags: ["history", "latin", "rome"], notes: "ONE\ntwo\nTHREE")
        #expect(request.expectedRevision == 2 && request.details == merged)
        await h.release(call.number, .deliver, request: mergeSave)
        #expect(h.editor?.outcome == .saved(revision: 3))
        #expect(await h.remote.books[1]?.details == merged)
        #expect(h.state.message == "Merged with revision 2 by someone else: they changed the tags and the notes.")
        await h.drain()
    }
}

/// Which fields each revision changed, from pairs of records worked by hand.
@Suite struct RevisionChangeTests {
    static let first = BookRecord(
        id: 1, title: "T", revision: 1, author: "A", details: BookDetails(year: 1900, tags: ["a"], notes: "n"))

    @Test func theFirstKnownRevisionChangedNothing() {
        #expect(RevisionChange(from: nil, to: Self.first).fields == [])
    }

    @Test func eachChangedFieldIsListedInTheFormsOrder() {
        let cases: [(BookRecord, [BookField])] = [
            (BookRecord(id: 1, title: "T", revision: 2, author: "A", details: Self.first.details), []),
            (
                BookRecord(
                    id: 1, title: "T2", revision: 2, author: "A",
                    details: BookDetails(year: 1900, tags: ["a", "b"], notes: "n")), [.title, .tags]
            ),
            (
                BookRecord(
                    id: 1, title: "T", revision: 2, author: "A",
                    details: BookDetails(
                        isbn: "9780141439518", year: 1901, publisher: "P", series: "S",
                        seriesIndex: SeriesIndex(thousandths: 1000), tags: ["a"], notes: "n\nm")),
                [.isbn, .year, .publisher, .series, .seriesIndex, .notes]
            ),
            (BookRecord(id: 1, title: "T", revision: 2, author: "B"), [.author, .year, .tags, .notes]),
        ]
        for (new, fields) in cases {
            let change = RevisionChange(from: Self.first, to: new)
            #expect(change.fields == fields, "\(new)")
            #expect(change.titleChanged == fields.contains(.title) && change.authorChanged == fields.contains(.author))
        }
    }
}
