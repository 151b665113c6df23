import BookCatalog
import Testing
@testable import BookshelfModel

/// The book both sides start from.
let mergeBase = book(1, "Old Title", author: "Old Author")

/// Three-way merge of a conflicting save, exhaustively: for each field, whether I changed it
/// and whether they left it, made my change too, or changed it otherwise; then, where the
/// merge is saved, each thing the store can do with that save (commit, fail, commit and lose
/// the answer, or meet a third writer who saved meanwhile).
@MainActor
@Suite struct MergeTests {

    /// What one side did to one field.
    enum Mine: CaseIterable { case kept, changed }
    enum Theirs: CaseIterable { case kept, sameAsMine, different }

    struct FieldCase: CustomStringConvertible {
        let mine: Mine
        let theirs: Theirs
        var description: String { "\(mine)/\(theirs)" }
    }

    /// The five meaningful cases of one field (they cannot make "my" change if I made none).
    static let fieldCases: [FieldCase] = Mine.allCases.flatMap { mine in
        Theirs.allCases.filter { !(mine == .kept && $0 == .sameAsMine) }.map { FieldCase(mine: mine, theirs: $0) }
    }

    enum StoreOutcome: CaseIterable {
        case commits
        case fails
        case commitsAndLosesTheAnswer
        /// The merge commits, a third writer saves on top, and only then the answer arrives.
        case commitsThenAThirdWriterSavesBeforeTheAnswer
        case thirdWriterChangesTheTitle
        case thirdWriterChangesTheAuthor
    }

    struct Scenario: CustomStringConvertible {
        let title: FieldCase
        let author: FieldCase
        var description: String { "title \(title), author \(author)" }

        func text(_ field: EditorField, side: String) -> String {
            let name = field == .title ? "Title" : "Author"
            let fieldCase = field == .title ? title : author
            let baseText = BookDraft(mergeBase)[field]
            switch side {
            case "mine": return fieldCase.mine == .changed ? "My \(name)" : baseText
            default:
                switch fieldCase.theirs {
                case .kept: return baseText
                case .sameAsMine: return "My \(name)"
                case .different: return "Their \(name)"
                }
            }
        }

        var mine: BookDraft { BookDraft(title: text(.title, side: "mine"), author: text(.author, side: "mine")) }
        var theirs: BookRecord {
            book(1, text(.title, side: "theirs"), revision: 2, author: text(.author, side: "theirs"))
        }
    }

    static let scenarios: [Scenario] = fieldCases.flatMap { title in
        fieldCases.map { Scenario(title: title, author: $0) }
    }
    .filter { $0.title.mine == .changed || $0.author.mine == .changed }

    /// The merge rule, field by field, from the issue: the side that changed a field wins; a
    /// field both changed to different text is a conflict.
    static func expectedMerge(base: BookDraft, theirs: BookDraft, mine: BookDraft) -> (
        merged: BookDraft, conflicts: [EditorField]
    ) {
        var merged = mine
        var conflicts: [EditorField] = []
        for field in EditorField.allCases {
            switch (mine[field] == base[field], theirs[field] == base[field], mine[field] == theirs[field]) {
            case (_, true, _): merged[field] = mine[field]
            case (true, false, _): merged[field] = theirs[field]
            case (false, false, true): merged[field] = mine[field]
            case (false, false, false): conflicts.append(field)
            }
        }
        return (merged, conflicts)
    }

    static func fieldsChanged(from old: BookDraft, to new: BookDraft) -> [EditorField] {
        EditorField.allCases.filter { old[$0] != new[$0] }
    }

    /// Opens the book, types `scenario.mine`, lets them commit theirs, saves, and answers the
    /// conflict fetch. Returns the harness and the first save's request.
    private func conflictedSave(_ scenario: Scenario) async -> Harness {
        let h = Harness(books: ["alice": [mergeBase], "bob": []])
        await openEditor(h, typing: scenario.mine)
        await h.remote.put(scenario.theirs)
        let save = h.model.save()!
        await h.remote.release(await h.nextCall(.save).number, .deliver)
        let fetch = await h.nextCall(.load)  // the model took the conflict and fetches theirs
        await h.release(fetch.number, .deliver, request: save)
        return h
    }

    @Test func everyCombinationOfChangedFieldsAndStoreOutcome() async {
        var cases = 0
        for scenario in Self.scenarios {
            let expected = Self.expectedMerge(
                base: BookDraft(mergeBase), theirs: BookDraft(scenario.theirs), mine: scenario.mine)
            if !expected.conflicts.isEmpty {
                await checkConflictView(scenario, expected: expected)
                cases += 1
            } else if expected.merged == BookDraft(scenario.theirs) {
                await checkNothingLeftToSave(scenario, merged: expected.merged)
                cases += 1
            } else {
                for outcome in StoreOutcome.allCases {
                    await checkMergedSave(scenario, merged: expected.merged, outcome: outcome)
                    cases += 1
                }
            }
        }
        print("MergeTests: \(Self.scenarios.count) field combinations, \(cases) cases")
        #expect(Self.scenarios.count == 21)
    }

    /// Both changed a field differently: nothing more is sent; base, theirs and mine of those
    /// fields are shown, and my draft is untouched.
    private func checkConflictView(_ scenario: Scenario, expected: (merged: BookDraft, conflicts: [EditorField])) async
    {
        let h = await conflictedSave(scenario)
        let conflict = h.editor?.conflict
        #expect(conflict?.theirs == scenario.theirs, "\(scenario)")
        #expect(conflict?.fields.map(\.field) == expected.conflicts, "\(scenario)")
        for field in conflict?.fields ?? [] {
            #expect(
                field.base == BookDraft(mergeBase)[field.field]
                    && field.theirs == BookDraft(scenario.theirs)[field.field]
                    && field.mine == scenario.mine[field.field], "\(scenario)")
        }
        #expect(conflict?.merged == expected.merged, "\(scenario)")
        #expect(conflict?.choices == [.reload, .overwrite, .editMerged, .keepEditing], "\(scenario)")
        #expect(h.editor?.draft == scenario.mine && h.editor?.base == mergeBase, "\(scenario)")
        #expect(await h.remote.arrivalCount(of: .save) == 1, "\(scenario): nothing sent")
        await h.drain()
    }

    /// Their revision already holds every change I made: nothing is sent.
    private func checkNothingLeftToSave(_ scenario: Scenario, merged: BookDraft) async {
        let h = await conflictedSave(scenario)
        #expect(
            h.editor?.conflict == nil && h.editor?.base == scenario.theirs && h.editor?.draft == merged, "\(scenario)")
        #expect(h.editor?.isDirty == false, "\(scenario)")
        #expect(
            h.state.message?.hasPrefix("Revision 2 by someone else already had your changes") == true, "\(scenario)")
        #expect(await h.remote.arrivalCount(of: .save) == 1, "\(scenario): nothing sent")
        await h.drain()
    }

    /// The merge is saved against their revision, and each store outcome is handled.
    private func checkMergedSave(_ scenario: Scenario, merged: BookDraft, outcome: StoreOutcome) async {
        let label = "\(scenario), \(outcome)"
        let h = await conflictedSave(scenario)
        let theirChanges = Self.fieldsChanged(from: BookDraft(mergeBase), to: BookDraft(scenario.theirs))
        guard let mergeSave = h.model.pendingRequests.last(where: { $0.kind == .save })?.request else {
            Issue.record("no merged save was sent: \(label)")
            await h.drain()
            return
        }
        let call = await h.nextCall(.save)
        guard case let .save(request) = call.call else { Issue.record("expected a save: \(label)"); return }
        #expect(
            request.expectedRevision == 2 && request.title == merged.title && request.author == merged.author,
            "\(label)")
        #expect(h.editor?.base == scenario.theirs && h.editor?.draft == merged, "\(label)")
        let mergedRecord = book(1, merged.title, revision: 3, author: merged.author)

        switch outcome {
        case .commits:
            await h.release(call.number, .deliver, request: mergeSave)
            expectSaved(h, mergedRecord, revision: 2, fields: theirChanges, label)
        case .fails:
            await h.release(call.number, .fail(.storeUnavailable("down")), request: mergeSave)
            #expect(h.editor?.outcome == .rejected(.storeUnavailable("down")), "\(label)")
            #expect(
                h.editor?.draft == merged && h.editor?.base == scenario.theirs && h.state.message == nil, "\(label)")
            #expect(await h.remote.books[1] == scenario.theirs, "\(label)")
        case .commitsThenAThirdWriterSavesBeforeTheAnswer:
            await h.remote.perform(call.number)
            let third = book(1, "Third Title", revision: 4, author: merged.author)
            await h.remote.put(third)
            await h.release(call.number, .deliver, request: mergeSave)
            // The answer is the merge's own revision: theirs on top is never taken for it.
            expectSaved(h, mergedRecord, revision: 2, fields: theirChanges, label)
            #expect(await h.remote.books[1] == third, "\(label)")
        case .commitsAndLosesTheAnswer:
            await h.remote.release(call.number, .commitThenFail(.outcomeUnknown))
            let reread = await h.nextCall(.load)
            await h.release(reread.number, .deliver, request: mergeSave)
            expectSaved(h, mergedRecord, revision: 2, fields: theirChanges, label)
        case .thirdWriterChangesTheTitle, .thirdWriterChangesTheAuthor:
            let field: EditorField = outcome == .thirdWriterChangesTheTitle ? .title : .author
            var thirdDraft = BookDraft(scenario.theirs)
            thirdDraft[field] = "Third " + (field == .title ? "Title" : "Author")
            let third = book(1, thirdDraft.title, revision: 3, author: thirdDraft.author)
            await h.remote.put(third)
            await h.remote.release(call.number, .deliver)
            let fetch = await h.nextCall(.load)
            await h.release(fetch.number, .deliver, request: mergeSave)
            // The merged draft, rebased on theirs, meets the third writer: merge again.
            let again = Self.expectedMerge(base: BookDraft(scenario.theirs), theirs: thirdDraft, mine: merged)
            if !again.conflicts.isEmpty {
                #expect(
                    h.editor?.conflict?.theirs == third && h.editor?.conflict?.fields.map(\.field) == again.conflicts,
                    "\(label)")
                #expect(h.editor?.draft == merged && h.editor?.base == scenario.theirs, "\(label)")
                #expect(await h.remote.arrivalCount(of: .save) == 2, "\(label)")
            } else {
                guard let secondSave = h.model.pendingRequests.last(where: { $0.kind == .save })?.request else {
                    Issue.record("no second merged save was sent: \(label)")
                    await h.drain()
                    return
                }
                let secondCall = await h.nextCall(.save)
                guard case let .save(second) = secondCall.call else {
                    Issue.record("expected a save: \(label)"); return
                }
                #expect(
                    second.expectedRevision == 3 && second.title == again.merged.title
                        && second.author == again.merged.author,
                    "\(label)")
                await h.release(secondCall.number, .deliver, request: secondSave)
                let allTheirs = EditorField.allCases.filter { theirChanges.contains($0) || $0 == field }
                expectSaved(
                    h, book(1, again.merged.title, revision: 4, author: again.merged.author), revision: 3,
                    fields: allTheirs, label)
            }
        }
        await h.drain()
    }

    private func expectSaved(_ h: Harness, _ record: BookRecord, revision: Int, fields: [EditorField], _ label: String)
    {
        #expect(h.editor?.outcome == .saved(revision: record.revision), "\(label)")
        #expect(h.editor?.base == record && h.editor?.isDirty == false && h.editor?.conflict == nil, "\(label)")
        let named = fields.map { $0 == .title ? "the title" : "the author" }.joined(separator: " and ")
        // Their revision may change no field at all (identical text saved again): the note
        // then says so, and never names an empty list of fields.
        let expected =
            fields.isEmpty
            ? "Saved over revision \(revision) by someone else, which changed no field."
            : "Merged with revision \(revision) by someone else: they changed \(named)."
        #expect(h.state.message == expected, "\(label): \(h.state.message ?? "no message")")
        #expect(h.state.message?.contains("changed .") != true, "\(label)")
    }

    /// Every note a merge can leave, for every set of fields they changed, names something.
    @Test func aMergeNoteNeverNamesAnEmptyListOfFields() {
        let sets: [[EditorField]] = [[], [.title], [.author], [.title, .author]]
        for fields in sets {
            let note = MergeNote(revision: 4, fields: fields)
            for text in [note.merged(.counter), note.alreadyThere(.counter), note.merged(.lastModified)] {
                #expect(!text.contains("changed ."), "\(fields): \(text)")
                #expect(!text.contains("changed )"), "\(fields): \(text)")
                #expect(!text.contains("changed  "), "\(fields): \(text)")
            }
        }
        #expect(
            MergeNote(revision: 4, fields: []).merged(.counter)
                == "Saved over revision 4 by someone else, which changed no field.")
    }

    // MARK: The choices of a same-field conflict

    /// I changed the title; they changed the title differently and the author.
    private func bothChangedTheTitle() async -> Harness {
        await conflictedSave(
            Scenario(
                title: FieldCase(mine: .changed, theirs: .different),
                author: FieldCase(mine: .kept, theirs: .different)))
    }

    @Test func keepMineSavesMyTitleWithTheirAuthor() async {
        let h = await bothChangedTheTitle()
        let overwrite = h.model.resolveConflict(.overwrite)!
        let call = await h.nextCall(.save)
        guard case let .save(request) = call.call else { Issue.record("expected a save"); return }
        #expect(request.expectedRevision == 2 && request.title == "My Title" && request.author == "Their Author")
        await h.release(call.number, .deliver, request: overwrite)
        #expect(h.editor?.outcome == .saved(revision: 3))
        #expect(await h.remote.books[1] == book(1, "My Title", revision: 3, author: "Their Author"))
        await h.drain()
    }

    @Test func takeTheirsDropsMyDraft() async {
        let h = await bothChangedTheTitle()
        #expect(h.model.resolveConflict(.reload) == nil)
        #expect(h.editor?.draft == BookDraft(title: "Their Title", author: "Their Author"))
        #expect(h.editor?.isDirty == false && h.editor?.conflict == nil)
        await h.drain()
    }

    @Test func editAMergePrefilledWithMineThenSaveAgainstTheirs() async {
        let h = await bothChangedTheTitle()
        h.model.focus(.author)
        #expect(h.model.resolveConflict(.editMerged) == nil)
        #expect(h.editor?.conflict == nil && h.editor?.focus == .title)
        #expect(h.editor?.draft == BookDraft(title: "My Title", author: "Their Author"))
        #expect(h.editor?.base?.revision == 2)
        h.model.setDraft(.title, to: "My Title, Their Title")
        let save = h.model.save()!
        let call = await h.nextCall(.save)
        guard case let .save(request) = call.call else { Issue.record("expected a save"); return }
        #expect(request.expectedRevision == 2)
        await h.release(call.number, .deliver, request: save)
        #expect(await h.remote.books[1] == book(1, "My Title, Their Title", revision: 3, author: "Their Author"))
        await h.drain()
    }

    @Test func keepEditingLeavesTheDraftAndTheBase() async {
        let h = await bothChangedTheTitle()
        #expect(h.model.resolveConflict(.keepEditing) == nil)
        #expect(h.editor?.draft == BookDraft(title: "My Title", author: "Old Author"))
        #expect(h.editor?.base == mergeBase && h.editor?.changedElsewhere?.revision == 2)
        await h.drain()
    }
}
