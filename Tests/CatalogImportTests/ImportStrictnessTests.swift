import BookCatalog
import CatalogImport
import Testing

/// Import never changes text quietly: what it cannot keep exactly it refuses, with the line.
@Suite struct ImportStrictnessTests {
    private func csv(_ text: String) -> BookImportResult { BookImport.parse(text, format: .csv) }
    private func jsonl(_ text: String) -> BookImportResult { BookImport.parse(text, format: .jsonLines) }

    @Test func paragraphAndLineSeparatorsAtTheEndsAreRefusedNotTrimmed() {
        let result = jsonl("{\"title\":\"\\u2029test\\u2029\"}\n{\"title\":\"\\u2028two\"}\n")
        #expect(result.books == [])
        #expect(
            result.problems == [
                BookImportProblem(line: 1, reason: "title contains a control character (U+2029)"),
                BookImportProblem(line: 2, reason: "title contains a control character (U+2028)"),
            ])
    }

    @Test func aTitleOfOnlyInvisibleCharactersIsBlank() {
        let result = jsonl(
            "{\"title\":\"\\u200B\"}\n{\"title\":\"\\uFEFF\\uFEFF\"}\n{\"title\":\"\\uFFFE\"}\n{\"title\":\" \\u200B \"}\n"
        )
        #expect(result.books == [])
        let blank = "title is blank (only spaces or invisible characters)"
        #expect(result.problems == (1...4).map { BookImportProblem(line: $0, reason: blank) })
    }

    @Test func theValidationRulesCallInvisibleTitlesInvalid() {
        for title in ["\u{200B}", "\u{FEFF}", "\u{FFFE}", " \u{2060} "] {
            #expect(throws: BookFailure.invalidTitle) { try BookValidation.title(title) }
        }
    }

    @Test func aTitleOfEndlessCombiningMarksIsTooLongInBytes() {
        let title = "Z" + String(repeating: "\u{0301}", count: 300_000)
        #expect(title.count == 1)
        #expect(throws: BookFailure.invalidTitle) { try BookValidation.title(title) }
        let result = jsonl("{\"title\":\"\(title)\"}\n")
        #expect(result.books == [])
        #expect(
            result.problems == [
                BookImportProblem(line: 1, reason: "title is too long (600001 bytes in UTF-8, at most 2000)")
            ])
    }

    @Test func fiveHundredFourByteCharactersStillFit() throws {
        let title = String(repeating: "\u{1F600}", count: 500)
        #expect(try BookValidation.title(title) == title)
    }

    @Test func aDuplicateKeyIsRefusedWithItsLine() {
        let result = jsonl("{\"title\":\"Dune\"}\n{\"title\":\"A\",\"title\":\"B\"}\n")
        #expect(result.books == [NewBook(title: "Dune")])
        #expect(result.problems.map(\.line) == [2])
        #expect(result.problems.first?.reason.contains("the key \"title\" appears twice") == true)
    }

    @Test func crOnlyLineEndsAreSaidToBeUnsupported() {
        let result = csv("title,author\r\"Dune\",\"Frank Herbert\"\r\"Emma\",\"Jane Austen\"\r")
        #expect(result.books == [])
        #expect(
            result.problems == [
                BookImportProblem(
                    line: 1,
                    reason:
                        "the lines end in a carriage return (CR) alone, which is not supported; save the file with LF or CRLF line ends"
                )
            ])
    }

    @Test func crlfFilesStillImport() {
        #expect(
            csv("title,author\r\n\"Dune\",\"Frank Herbert\"\r\n").books == [
                NewBook(title: "Dune", author: "Frank Herbert")
            ])
    }
}
