import BookCatalog
import Foundation
import Testing

/// A book's details (ISBN, year, publisher, series, tags, notes): a save with them writes
/// them all, a save without them keeps them, and every read carries them.
extension ContractCheck {
    static let details: [ContractCheck] = [
        ContractCheck(
            "a save with details stores every one in its kept form; load, another remote and search return them"
        ) {
            fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let book = library.book(0)
            let typed = BookDetails(
                isbn: " 0-14-143951-3 ", year: 2015, publisher: "  Profile Books ", series: "Ancient Rome ",
                seriesIndex: SeriesIndex("02.50"), tags: [" Rome", "history", "Ancient", "HISTORY", ""],
                notes: "First line\r\nsecond line\r\n\r\n")
            let kept = BookDetails(
                isbn: "9780141439518", year: 2015, publisher: "Profile Books", series: "Ancient Rome",
                seriesIndex: SeriesIndex(thousandths: 2_500), tags: ["Ancient", "history", "Rome"],
                notes: "First line\nsecond line")
            let saved = try await editor.save(
                SaveRequest(id: book.id, title: book.title, details: typed, expectedRevision: 1))
            let expected = BookRecord(id: book.id, title: book.title, revision: 2, author: book.author, details: kept)
            #expect(saved == expected)
            #expect(try await editor.load(id: book.id) == expected)
            #expect(try await library.remote(for: "editor2").load(id: book.id) == expected)
            #expect(try await editor.search(SearchQuery(text: "history of rome")).records.first == expected)
        },
        ContractCheck("details round-trip exactly: accents, CJK, emoji, the largest of each") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let book = library.book(3)
            let notes = (1...500).map { "Line \($0): café 東京 🌸 e\u{301}" }.joined(separator: "\n")
            let largest = BookDetails(
                isbn: "9791090636071", year: BookValidation.earliestYear,
                publisher: String(repeating: "é", count: 200), series: String(repeating: "東", count: 200),
                seriesIndex: SeriesIndex(thousandths: SeriesIndex.maximumThousandths),
                tags: (1...50).map { String(format: "tag %02d", $0) }, notes: notes)
            #expect(try largest.validated() == largest, "each value is at its rule's limit, and kept as it is")
            let saved = try await editor.save(
                SaveRequest(id: book.id, title: book.title, details: largest, expectedRevision: 1))
            #expect(saved.details == largest)
            let loaded = try await editor.load(id: book.id).details
            #expect(loaded == largest)
            #expect(loaded.notes.unicodeScalars.elementsEqual(notes.unicodeScalars))
            #expect(loaded.publisher.unicodeScalars.elementsEqual(largest.publisher.unicodeScalars))
        },
        ContractCheck("a save without details keeps them, whether it changes the title or the author") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let book = library.book(1)
            let details = BookDetails(isbn: "9780306406157", year: 1999, tags: ["coffee"], notes: "Kept")
            _ = try await editor.save(
                SaveRequest(id: book.id, title: book.title, details: details, expectedRevision: 1))
            let renamed = try await editor.save(SaveRequest(id: book.id, title: "Café Society II", expectedRevision: 2))
            #expect(
                renamed
                    == BookRecord(
                        id: book.id, title: "Café Society II", revision: 3, author: book.author, details: details))
            let reauthored = try await editor.save(
                SaveRequest(id: book.id, title: "Café Society II", author: "J. Dupont", expectedRevision: 3))
            #expect(
                reauthored
                    == BookRecord(
                        id: book.id, title: "Café Society II", revision: 4, author: "J. Dupont", details: details))
            let legacy = try await editor.save(id: book.id, title: "Café Society", expectedRevision: 4)
            #expect(legacy.details == details)
            #expect(try await editor.load(id: book.id) == legacy)
        },
        ContractCheck("details are written all together: empty values clear, and fields not given are cleared") {
            fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let book = library.book(2)
            let full = BookDetails(
                isbn: "9780141439518", year: 1776, publisher: "Strahan", series: "Decline",
                seriesIndex: SeriesIndex("1"),
                tags: ["empire"], notes: "Volume one")
            _ = try await editor.save(SaveRequest(id: book.id, title: book.title, details: full, expectedRevision: 1))
            let typedEmpty = BookDetails(isbn: "  ", publisher: " ", series: "", tags: [" ", ""], notes: "\n \n")
            let cleared = try await editor.save(
                SaveRequest(id: book.id, title: book.title, details: typedEmpty, expectedRevision: 2))
            #expect(cleared.details == BookDetails.empty)
            #expect(try await editor.load(id: book.id).details == BookDetails.empty)
            _ = try await editor.save(SaveRequest(id: book.id, title: book.title, details: full, expectedRevision: 3))
            let yearOnly = try await editor.save(
                SaveRequest(id: book.id, title: book.title, details: BookDetails(year: 1788), expectedRevision: 4))
            #expect(yearOnly.details == BookDetails(year: 1788))
            #expect(try await editor.load(id: book.id).details == BookDetails(year: 1788))
        },
        ContractCheck("a conflicting, refused or invalid save with details changes nothing") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let reader = try await library.remote(for: "reader")
            let book = library.book(5)
            let details = BookDetails(year: -27, tags: ["rome"])
            _ = try await editor.save(
                SaveRequest(id: book.id, title: book.title, details: details, expectedRevision: 1))
            let first = BookRecord(id: book.id, title: book.title, revision: 2, author: book.author, details: details)
            let other = BookDetails(year: 1800, notes: "Theirs")
            await expectFailure(.conflict(expected: 1, actual: 2)) {
                _ = try await editor.save(
                    SaveRequest(id: book.id, title: "Late", details: other, expectedRevision: 1))
            }
            await expectFailure(.notAllowed) {
                _ = try await reader.save(
                    SaveRequest(id: book.id, title: book.title, details: other, expectedRevision: 2))
            }
            await expectFailure(.invalidField(.isbn, reason: ISBNProblem.wrongCheckDigit.description)) {
                _ = try await editor.save(
                    SaveRequest(
                        id: book.id, title: book.title, details: BookDetails(isbn: "9780141439519"), expectedRevision: 2
                    ))
            }
            let tooManyTags = BookDetails(tags: (0...BookValidation.maximumTagCount).map { "tag \($0)" })
            await #expect(throws: BookFailure.self) {
                _ = try await editor.save(
                    SaveRequest(id: book.id, title: book.title, details: tooManyTags, expectedRevision: 2))
            }
            #expect(try await reader.load(id: book.id) == first)
            #expect(try await reader.history(of: book.id).map(\.record) == [first, book])
        },
        ContractCheck("history carries every revision's details") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let book = library.book(6)
            let first = BookDetails(publisher: "Essays Press", tags: ["essays"])
            let second = BookDetails(year: 1580, series: "Essais", seriesIndex: SeriesIndex("3"), notes: "Book III")
            let withFirst = try await editor.save(
                SaveRequest(id: book.id, title: book.title, details: first, expectedRevision: 1))
            let renamed = try await editor.save(SaveRequest(id: book.id, title: "Essais", expectedRevision: 2))
            let withSecond = try await editor.save(
                SaveRequest(id: book.id, title: "Essais", details: second, expectedRevision: 3))
            let revisions = try await library.remote(for: "reader").history(of: book.id)
            #expect(revisions.map(\.record) == [withSecond, renamed, withFirst, book])
            #expect(revisions.map(\.record.details) == [second, first, first, BookDetails.empty])
        },
        ContractCheck("search results carry details on every page, including another remote's saves") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let other = try await library.remote(for: "editor2")
            var current = library.booksInMain
            for (index, book) in current.enumerated() where index.isMultiple(of: 2) {
                let details = BookDetails(year: 1900 + index, tags: ["shelf \(index)"], notes: "Note \(index)")
                let saver = index.isMultiple(of: 4) ? editor : other
                let saved = try await saver.save(
                    SaveRequest(id: book.id, title: book.title, details: details, expectedRevision: 1))
                current[index] = BookRecord(
                    id: book.id, title: book.title, revision: 2, author: book.author, details: details)
                #expect(saved == current[index])
            }
            let byID = Dictionary(uniqueKeysWithValues: current.map { ($0.id, $0) })
            for text in ["", "history", "rome", "café"] {
                var offset = 0
                while true {
                    let page = try await editor.search(SearchQuery(text: text, limit: 3, offset: offset))
                    for record in page.records { #expect(record == byID[record.id], "\(text) at \(offset)") }
                    offset += page.records.count
                    if page.records.isEmpty || offset >= page.total { break }
                }
                #expect(offset == library.expected(text, in: current).total, "\(text)")
            }
        },
    ]
}

/// Search by the details (issue 40): a query word matches the series, the publisher or a tag,
/// each a text of its own, at rank 3 after the title and author matches; a query that is an
/// ISBN, in either form, puts the books that have it first. Notes are never searched.
extension ContractCheck {
    static let searchingDetails: [ContractCheck] = [
        ContractCheck(
            "a word in the series, the publisher or a tag matches after the title's and the author's matches; notes never; an ISBN query lists its books first"
        ) { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let (cafe, empire, history, essays) = (library.book(1), library.book(2), library.book(4), library.book(6))
            for (book, details) in [
                (
                    cafe,
                    BookDetails(
                        publisher: "Hi Fi", series: "Roman Nights", tags: ["Gibbon", "Zeppelin"], notes: "Marvellous")
                ),
                (essays, BookDetails(publisher: "Fi", series: "Hi")),
                (history, BookDetails(isbn: "9780131103627")),
            ] {
                _ = try await editor.save(
                    SaveRequest(id: book.id, title: book.title, details: details, expectedRevision: 1))
            }
            func titles(_ text: String) async throws -> [String] {
                let page = try await editor.search(SearchQuery(text: text))
                #expect(page.total == page.records.count, "\(text)")
                return page.records.map(\.title)
            }
            #expect(try await titles("zeppelin") == [cafe.title])
            #expect(try await titles("marvellous") == [])
            // By title (rank 1), then by series (rank 3).
            #expect(try await titles("roman") == [empire.title, cafe.title])
            // By author (rank 2) before by tag (rank 3), though "Café Society" sorts first by title.
            #expect(try await titles("gibbon") == [empire.title, cafe.title])
            // A word of several tokens lies within one field: Essays' "Hi" and "Fi" are two fields.
            #expect(try await titles("hi-fi") == [cafe.title])
            #expect(try await titles("hi fi essays") == [essays.title])
            // An ISBN-10 or ISBN-13 query lists the book with that ISBN first; its text matches none.
            #expect(try await titles("0-13-110362-8") == [history.title])
            #expect(try await titles("9780131103627") == [history.title])
            #expect(try await titles("9780131103626") == [])
        },
        ContractCheck("a word matches the series, the publisher or a tag, after title and author matches") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let (rome, history, romeHistory, essays, empire, cafe, japanese) = (
                library.book(0), library.book(4), library.book(5), library.book(6), library.book(2),
                library.book(1), library.book(3)
            )
            _ = try await editor.save(
                SaveRequest(
                    id: empire.id, title: empire.title,
                    details: BookDetails(
                        publisher: "Strahan", series: "Decline and Fall", tags: ["history", "classics"]),
                    expectedRevision: 1))
            _ = try await editor.save(
                SaveRequest(
                    id: essays.id, title: essays.title, details: BookDetails(publisher: "Penguin Classics"),
                    expectedRevision: 1))
            _ = try await editor.save(
                SaveRequest(
                    id: cafe.id, title: cafe.title, details: BookDetails(notes: "Zanzibar decline"),
                    expectedRevision: 1))
            _ = try await editor.save(
                SaveRequest(
                    id: japanese.id, title: japanese.title, details: BookDetails(series: "東京叢書"),
                    expectedRevision: 1))
            #expect(try await library.ids(editor, "decline") == [empire.id], "the series; never the notes")
            #expect(try await library.ids(editor, "strah") == [empire.id], "the publisher, by a prefix")
            #expect(try await library.ids(editor, "and fall") == [empire.id], "two words of the series")
            #expect(try await library.ids(editor, "fall strahan") == [empire.id], "each word in its own field")
            #expect(try await library.ids(editor, "roman decline") == [empire.id], "the title and the series")
            // Ranks 0 to 2 as before, then the tag's match; rank 3 in folded-title order.
            let hist = try await editor.search(SearchQuery(text: "hist"))
            #expect(hist.records.map(\.id) == [history.id, rome.id, romeHistory.id, essays.id, empire.id])
            #expect(hist.total == 5)
            #expect(try await library.ids(editor, "classics") == [essays.id, empire.id])
            #expect(try await library.ids(editor, "東京") == [japanese.id])
            // A word of several tokens lies within one field, never across two.
            for text in ["fall-strahan", "history-classics", "strahan-decline", "gibbon-decline", "empire-decline"] {
                #expect(try await library.ids(editor, text) == [], "\(text)")
            }
            #expect(try await library.ids(editor, "zanzibar") == [], "notes are not searched")
            let paged = try await editor.search(SearchQuery(text: "hist", limit: 2, offset: 3))
            #expect(paged.records.map(\.id) == [essays.id, empire.id] && paged.total == 5)
        },
        ContractCheck("an edit of the details changes what finds the book; another scope's details stay hidden") {
            fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let outsider = try await library.remote(for: "outsider")
            let book = library.book(1)
            _ = try await editor.save(
                SaveRequest(
                    id: book.id, title: book.title, details: BookDetails(tags: ["Paris"]), expectedRevision: 1))
            #expect(try await library.ids(editor, "paris") == [book.id])
            _ = try await editor.save(
                SaveRequest(
                    id: book.id, title: book.title, details: BookDetails(series: "Lyon"), expectedRevision: 2))
            #expect(try await library.ids(editor, "paris") == [])
            #expect(try await library.ids(editor, "lyon") == [book.id])
            _ = try await outsider.save(
                SaveRequest(
                    id: library.secret.id, title: library.secret.title,
                    details: BookDetails(isbn: "9780306406157", tags: ["lyon"]), expectedRevision: 1))
            #expect(try await library.ids(editor, "lyon") == [book.id])
            #expect(try await library.ids(editor, "9780306406157") == [])
            #expect(try await library.ids(outsider, "lyon") == [library.secret.id])
        },
        ContractCheck("a query that is an ISBN-10 or ISBN-13 puts the books with that ISBN first") { fixture in
            let books = Library.books + [SeedBook("Catalogue 0306406152", by: "Anon")]
            let library = try await Library.make(fixture, books: books)
            let editor = try await library.remote(for: "editor")
            let (rome, romeHistory, catalogue) = (library.book(0), library.book(5), library.book(9))
            _ = try await editor.save(
                SaveRequest(
                    id: romeHistory.id, title: romeHistory.title, details: BookDetails(isbn: "9780306406157"),
                    expectedRevision: 1))
            for text in ["9780306406157", "978-0-306-40615-7", " 978 0 306 40615 7 "] {
                let page = try await editor.search(SearchQuery(text: text))
                #expect(page.records.map(\.id) == [romeHistory.id] && page.total == 1, "\(text)")
            }
            // The ISBN-10 form finds the book first (rank −1, before the title match of rank 1); with
            // hyphens its words are "0 306 40615 2", which no title holds.
            let tenDigits = try await editor.search(SearchQuery(text: "0306406152"))
            #expect(tenDigits.records.map(\.id) == [romeHistory.id, catalogue.id] && tenDigits.total == 2)
            let hyphenated = try await editor.search(SearchQuery(text: "0-306-40615-2"))
            #expect(hyphenated.records.map(\.id) == [romeHistory.id] && hyphenated.total == 1)
            #expect(try await library.ids(editor, "0306406153") == [], "a wrong check digit is no ISBN")
            #expect(try await library.ids(editor, "030640615") == [catalogue.id], "a prefix is a word, not an ISBN")
            // Two books with one ISBN come first in folded-title order; paging on by cursor.
            _ = try await editor.save(
                SaveRequest(
                    id: rome.id, title: rome.title, details: BookDetails(isbn: "0-306-40615-2"), expectedRevision: 1))
            var paged: [Int] = []
            var cursor: SearchCursor?
            while paged.count < 3 {
                let page = try await editor.search(
                    SearchQuery(text: "0306406152", limit: 1, offset: paged.count, after: cursor))
                #expect(page.total == 3)
                guard !page.records.isEmpty else { break }
                paged += page.records.map(\.id)
                cursor = page.next
            }
            #expect(paged == [rome.id, romeHistory.id, catalogue.id])
        },
    ]
}
