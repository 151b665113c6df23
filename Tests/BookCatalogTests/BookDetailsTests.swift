import BookCatalog
import Foundation
import Testing

/// The rules of the fields beyond title and author, checked before any store call; each
/// message names its field. Expected ISBNs are worked by hand from the check-digit rules.
@Suite struct BookDetailsTests {
    @Test(arguments: [
        // ISBN-10 of Pride and Prejudice (Penguin Classics), with and without hyphens.
        ("0-14-143951-3", "9780141439518"),
        ("0141439513", "9780141439518"),
        ("978-0-14-143951-8", "9780141439518"),
        ("978 0141 439518", "9780141439518"),
        // A check digit of X (value 10): 0-8044-2957-X.
        ("0-8044-2957-x", "9780804429573"),
        // A 979 ISBN-13 has no ISBN-10 form.
        ("979-10-90636-07-1", "9791090636071"),
    ])
    func anISBNIsKeptAsItsISBN13(typed: String, canonical: String) throws {
        #expect(try BookValidation.isbn(typed) == canonical)
    }

    @Test(arguments: [
        ("0-14-143951-4", "check digit is wrong"),
        ("978-0-14-143951-9", "check digit is wrong"),
        ("0-14-14395", "10 or 13 digits"),
        ("123-4-56789-012-8", "begins with 978 or 979"),
        ("ISBN 0141439513", "digits"),
        ("014143951X3", "10 or 13 digits"),
    ])
    func aWrongISBNIsRefusedNamingTheField(typed: String, reason: String) {
        #expect {
            try BookValidation.isbn(typed)
        } throws: { error in
            guard case let BookFailure.invalidField(field, message) = error else { return false }
            return field == .isbn && message.contains(reason) && "\(error)".hasPrefix("ISBN: ")
        }
    }

    @Test func aBlankISBNIsNone() throws {
        #expect(try BookValidation.isbn("  ") == nil)
    }

    @Test func theTenDigitFormIsTheSameBook() {
        #expect(ISBN.tenDigitForm(of: "9780141439518") == "0141439513")
        #expect(ISBN.tenDigitForm(of: "9780804429573") == "080442957X")
        #expect(ISBN.tenDigitForm(of: "9791090636071") == nil)
    }

    @Test func aQueryShapedLikeAnISBNIsRecognisedWhateverItsCheckDigit() {
        #expect(ISBN.looksLikeOne("0-14-143951-3"))
        #expect(ISBN.looksLikeOne("9780141439519"))
        #expect(ISBN.looksLikeOne("080442957X"))
        #expect(!ISBN.looksLikeOne("978014143951X"))
        #expect(!ISBN.looksLikeOne("1984"))
        #expect(!ISBN.looksLikeOne("war and peace"))
    }

    @Test func yearsRunFromMinus3000ToNextYear() throws {
        let next = Calendar(identifier: .gregorian).component(.year, from: Date()) + 1
        #expect(BookValidation.latestYear == next)
        #expect(try BookValidation.year(text: "1869") == 1869)
        #expect(try BookValidation.year(text: "-3000") == -3000)
        #expect(try BookValidation.year(text: "\(next)") == next)
        #expect(try BookValidation.year(text: "") == nil)
        for bad in ["-3001", "\(next + 1)", "1869a", "18.5", "99999999999999999999"] {
            #expect(throws: BookFailure.self, "\(bad)") { try BookValidation.year(text: bad) }
        }
    }

    @Test func aSeriesIndexIsADecimalOfUpToThreePlaces() throws {
        #expect(try BookValidation.seriesIndex(text: "2")?.description == "2")
        #expect(try BookValidation.seriesIndex(text: "2.5")?.description == "2.5")
        #expect(try BookValidation.seriesIndex(text: "02.50")?.description == "2.5")
        #expect(try BookValidation.seriesIndex(text: "0.125")?.thousandths == 125)
        #expect(try BookValidation.seriesIndex(text: " ") == nil)
        for bad in ["-1", "2,5", "2.", ".5", "1.2345", "1e3", "100000", "٣"] {
            #expect(throws: BookFailure.self, "\(bad)") { try BookValidation.seriesIndex(text: bad) }
        }
        #expect(SeriesIndex("2")! < SeriesIndex("2.5")!)
    }

    @Test func tagsAreASetComparedFolded() throws {
        #expect(
            try BookValidation.tags(text: "sci-fi, Classics,  classics , Clássics,,  to-read") == [
                "Classics", "sci-fi", "to-read",
            ])
        #expect(try BookValidation.tags(text: "") == [])
        let tooMany = (0...BookValidation.maximumTagCount).map { "tag\($0)" }
        #expect(throws: BookFailure.self) { try BookValidation.tags(tooMany) }
        #expect(throws: BookFailure.self) { try BookValidation.tags([String(repeating: "x", count: 51)]) }
        #expect(throws: BookFailure.self) { try BookValidation.tags(["bell\u{7}"]) }
        #expect(throws: BookFailure.self) { try BookValidation.tags(["a,b"]) }
    }

    @Test func notesKeepTheirLinesAndRefuseOtherControlCharacters() throws {
        #expect(try BookValidation.notes("first\r\nsecond\rthird\n\n") == "first\nsecond\nthird")
        #expect(throws: BookFailure.self) { try BookValidation.notes("tab\there") }
        #expect(throws: BookFailure.self) { try BookValidation.notes("escape\u{1B}[31m") }
        #expect(throws: BookFailure.self) { try BookValidation.notes("line\u{2028}separator") }
        let longest = String(repeating: "a", count: BookValidation.maximumNotesLength)
        #expect(try BookValidation.notes(longest) == longest)
        #expect(throws: BookFailure.self) { try BookValidation.notes(longest + "a") }
    }

    @Test func publisherAndSeriesAreOneLineOfAtMost200Characters() throws {
        #expect(try BookValidation.publisher("  Penguin  ") == "Penguin")
        #expect(throws: BookFailure.self) { try BookValidation.publisher(String(repeating: "p", count: 201)) }
        #expect(throws: BookFailure.self) { try BookValidation.series("Dune\nChronicles") }
    }

    @Test func validatedDetailsAreCanonicalSoThatEqualBooksAreEqual() throws {
        let typed = BookDetails(
            isbn: "0-14-143951-3", year: 1813, publisher: " Penguin ", series: "", tags: ["b", "A", "a"],
            notes: "x\r\n")
        let kept = try typed.validated()
        #expect(
            kept
                == BookDetails(
                    isbn: "9780141439518", year: 1813, publisher: "Penguin", tags: ["A", "b"], notes: "x"))
        #expect(try kept.validated() == kept, "validating twice changes nothing")
        #expect(BookDetails().isEmpty && !kept.isEmpty)
    }

    @Test func aSaveRequestValidatesItsDetailsToo() {
        let request = SaveRequest(
            id: 1, title: "Emma", details: BookDetails(isbn: "0-14-143951-4"), expectedRevision: 1)
        #expect(throws: BookFailure.invalidField(.isbn, reason: ISBNProblem.wrongCheckDigit.description)) {
            try request.validated()
        }
    }
}
