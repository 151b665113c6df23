import TerminalSafeText
import Testing

@Suite("Grouped numbers")
struct NumberTextTests {
    @Test("up to three digits stand alone; every three more from the right get a comma")
    func positive() {
        #expect(NumberText.grouped(0) == "0")
        #expect(NumberText.grouped(7) == "7")
        #expect(NumberText.grouped(999) == "999")
        #expect(NumberText.grouped(1_000) == "1,000")
        #expect(NumberText.grouped(25_000) == "25,000")
        #expect(NumberText.grouped(100_001) == "100,001")
        #expect(NumberText.grouped(1_000_000) == "1,000,000")
        #expect(NumberText.grouped(Int.max) == "9,223,372,036,854,775,807")
    }

    @Test("a minus sign comes before the digits, never a comma after it")
    func negative() {
        #expect(NumberText.grouped(-1) == "-1")
        #expect(NumberText.grouped(-999) == "-999")
        #expect(NumberText.grouped(-123) == "-123")
        #expect(NumberText.grouped(-1_000) == "-1,000")
        #expect(NumberText.grouped(-123_456) == "-123,456")
        #expect(NumberText.grouped(-1_000_000) == "-1,000,000")
        #expect(NumberText.grouped(Int.min) == "-9,223,372,036,854,775,808")
    }
}
