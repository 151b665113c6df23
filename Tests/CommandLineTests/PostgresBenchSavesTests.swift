@testable import bookshelf_bench
import Testing

/// The writers of `bookshelf-bench postgres` save the same hot books in every run on a reused
/// catalog: a title must not grow with the runs.
@Suite struct PostgresBenchSavesTests {
    @Test("a hot book's title keeps its length however many runs saved it")
    func aTitleDoesNotGrowWithTheRuns() {
        var title = "a atlas of the river"
        for run in 0..<1_000 {
            title = PostgresBench.savedTitle(title, writer: run % 2, round: run)
        }
        #expect(title == "a atlas of the river w1 r999")
    }

    @Test("a title without a mark keeps every word")
    func aTitleWithoutAMarkIsKept() {
        #expect(PostgresBench.savedTitle("War and Peace", writer: 0, round: 7) == "War and Peace w0 r7")
        #expect(PostgresBench.savedTitle("Room 101 w", writer: 1, round: 0) == "Room 101 w w1 r0")
    }
}
