import BookCatalog
import CatalogSimulation
import Testing
@testable import BookshelfModel

/// "The Histories" with every field filled, as a store keeps them.
let detailedBook = BookRecord(
    id: 1, title: "The Histories", revision: 1, author: "Herodotus",
    details: BookDetails(
        isbn: "9780140449082", year: -430, publisher: "Penguin", series: "Penguin Classics",
        seriesIndex: SeriesIndex(thousandths: 2500), tags: ["Greece", "history"], notes: "one\ntwo\nthree"))

/// The editor's draft holds every field of a book, checks each against its rule before a
/// save, and sends them all.
@MainActor
@Suite struct DraftFieldsTests {
    @Test func openingABookFillsEveryFieldAsText() async {
        let h = Harness(books: ["alice": [detailedBook], "bob": []])
        await h.start()
        _ = h.model.openSelected()!
        await h.answer(.load, with: .deliver)
        #expect(
            h.editor?.draft
                == BookDraft(
                    title: "The Histories", author: "Herodotus", isbn: "9780140449082", year: "-430",
                    publisher: "Penguin", series: "Penguin Classics", seriesIndex: "2.5", tags: "Greece, history",
                    notes: "one\ntwo\nthree"))
        #expect(h.editor?.isDirty == false && h.editor?.problems == [:])
        await h.drain()
    }

    @Test func aSaveSendsEveryFieldAsTheStoreKeepsIt() async {
        let h = Harness(books: ["alice": [mergeBase], "bob": []])
        await openEditor(h, typing: BookDraft(mergeBase))
        // As a person types them: an ISBN-10 with hyphens, spaces around, a tag twice.
        for (field, text) in [
            (EditorField.isbn, "0-14-143951-3"), (.year, "1869"), (.publisher, " Penguin "), (.series, "Classics"),
            (.seriesIndex, "2.50"), (.tags, "Rome, history, rome"), (.notes, "one\r\ntwo"),
        ] {
            h.model.setDraft(field, to: text)
        }
        #expect(h.editor?.problems == [:])
        let save = h.model.save()!
        let call = await h.nextCall(.save)
        guard case let .save(request) = call.call else {
            Issue.record("expected a save")
            return
        }
        let expected = BookDetails(
            isbn: "9780141439518", year: 1869, publisher: "Penguin", series: "Classics",
            seriesIndex: SeriesIndex(thousandths: 2500), tags: ["history", "Rome"], notes: "one\ntwo")
        #expect(request.details == expected)
        #expect(request.title == "Old Title" && request.author == "Old Author" && request.expectedRevision == 1)
        await h.release(call.number, .deliver, request: save)
        #expect(h.editor?.outcome == .saved(revision: 2))
        // The draft becomes the saved book's own text, clean.
        #expect(
            h.editor?.draft
                == BookDraft(
                    title: "Old Title", author: "Old Author", isbn: "9780141439518", year: "1869",
                    publisher: "Penguin", series: "Classics", seriesIndex: "2.5", tags: "history, Rome",
                    notes: "one\ntwo"))
        #expect(h.editor?.isDirty == false)
        #expect(await h.remote.books[1]?.details == expected)
        await h.drain()
    }

    @Test func aFieldThatBreaksItsRuleIsNamedBesideItAndNothingIsSent() async {
        let h = Harness(books: ["alice": [mergeBase], "bob": []])
        await openEditor(h, typing: BookDraft(mergeBase))
        h.model.setDraft(.isbn, to: "0-14-143951-4")
        h.model.setDraft(.year, to: "12345678")
        h.model.setDraft(.seriesIndex, to: "two")
        h.model.setDraft(.tags, to: "fine, " + String(repeating: "x", count: 51))
        h.model.setDraft(.notes, to: "a bell\u{7}")
        let problems = h.editor?.problems ?? [:]
        #expect(Set(problems.keys) == [.isbn, .year, .seriesIndex, .tags, .notes])
        #expect(problems[.isbn] == "ISBN: \(ISBNProblem.wrongCheckDigit.description).")
        #expect(problems[.year]?.hasPrefix("Year: a year is a whole number") == true)
        #expect(problems[.seriesIndex]?.hasPrefix("Series index: a position such as 1, 2 or 2.5") == true)
        #expect(problems[.tags]?.hasPrefix("Tags: each tag needs 1 to 50 characters") == true)
        #expect(problems[.notes]?.hasPrefix("Notes: line breaks are kept") == true)
        #expect(h.editor?.canSave == false)
        #expect(h.model.save() == nil)
        #expect(await h.remote.arrivalCount(of: .save) == 0)
        #expect(h.editor?.draft.isbn == "0-14-143951-4" && h.editor?.draft.notes == "a bell\u{7}", "the draft is kept")
        // Fixing one leaves the others named.
        h.model.setDraft(.isbn, to: "")
        #expect(Set((h.editor?.problems ?? [:]).keys) == [.year, .seriesIndex, .tags, .notes])
        await h.drain()
    }

    @Test func reloadingTheirVersionReplacesEveryField() async {
        let h = Harness(books: ["alice": [detailedBook], "bob": []])
        await h.start()
        _ = h.model.openSelected()!
        await h.answer(.load, with: .deliver)
        // Both change the second line of the notes: a conflict. Only I clear the ISBN.
        h.model.setDraft(.notes, to: "one\nmine\nthree")
        h.model.setDraft(.isbn, to: "")
        let theirs = BookRecord(
            id: 1, title: "Histories", revision: 2, author: "Herodotus",
            details: BookDetails(isbn: "9780140449082", tags: ["Greece"], notes: "one\ntheirs\nthree"))
        await h.remote.put(theirs)
        let save = h.model.save()!
        await h.remote.release(await h.nextCall(.save).number, .deliver)
        await h.release(await h.nextCall(.load).number, .deliver, request: save)
        #expect(h.editor?.conflict?.fields.map(\.field) == [.notes])
        h.model.resolveConflict(.reload)
        #expect(h.editor?.draft == BookDraft(theirs) && h.editor?.base == theirs)
        #expect(
            h.editor?.draft.isbn == "9780140449082" && h.editor?.draft.year == "" && h.editor?.draft.tags == "Greece")
        await h.drain()
    }
}

/// A draft that would save what the book already holds sends nothing: no needless revision.
@MainActor
@Suite struct SameValuesTests {
    @Test func anISBN10OfItsISBNAndTagsInAnotherOrderAreNoChange() async {
        let h = Harness(books: ["alice": [detailedBook], "bob": []])
        await h.start()
        _ = h.model.openSelected()!
        await h.answer(.load, with: .deliver)
        h.model.setDraft(.isbn, to: "0-14-044908-6")
        h.model.setDraft(.tags, to: "history, Greece")
        h.model.setDraft(.seriesIndex, to: "2.50")
        #expect(h.editor?.isDirty == true)
        #expect(h.model.save() == nil)
        #expect(h.editor?.outcome == .noChanges)
        #expect(await h.remote.arrivalCount(of: .save) == 0)
        h.model.setDraft(.year, to: "-431")
        #expect(h.model.save() != nil, "a real change is sent")
        await h.drain()
    }
}
