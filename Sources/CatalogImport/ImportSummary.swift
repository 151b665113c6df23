/// What an import made of its file: how many books it read, how many fields it filled in
/// them, and what it left out and why, so a user sees what did not come across before
/// trusting the catalog with it.
public struct ImportSummary: Sendable, Equatable {
    /// One kind of thing left out, and how many times it was.
    public struct Skip: Sendable, Equatable {
        public let reason: String
        public let count: Int

        public init(reason: String, count: Int) {
            self.reason = reason
            self.count = count
        }
    }

    public var booksRead = 0
    /// Fields with a value in the books read (a title, an author, an ISBN… each counts one).
    public var fieldsMapped = 0
    /// In the order each kind was first met.
    public private(set) var skipped: [Skip] = []
    /// What was read but not as the file said (a field's encoding guessed, say): nothing lost,
    /// but worth a look. Counted like skips.
    public private(set) var noted: [Skip] = []

    public init(booksRead: Int = 0, fieldsMapped: Int = 0, skipped: [Skip] = []) {
        self.booksRead = booksRead
        self.fieldsMapped = fieldsMapped
        self.skipped = skipped
    }

    /// Counts one more (or `count` more) of the kind `reason`.
    public mutating func skip(_ reason: String, count: Int = 1) {
        guard count > 0 else { return }
        if let index = skipped.firstIndex(where: { $0.reason == reason }) {
            skipped[index] = Skip(reason: reason, count: skipped[index].count + count)
        } else {
            skipped.append(Skip(reason: reason, count: count))
        }
    }

    /// Counts one more (or `count` more) of the notice `reason`.
    public mutating func note(_ reason: String, count: Int = 1) {
        guard count > 0 else { return }
        if let index = noted.firstIndex(where: { $0.reason == reason }) {
            noted[index] = Skip(reason: reason, count: noted[index].count + count)
        } else {
            noted.append(Skip(reason: reason, count: count))
        }
    }

    /// Counts a book read with `fields` fields holding a value.
    mutating func read(fields: Int) {
        booksRead += 1
        fieldsMapped += fields
    }

    /// The report, a line each: what was read, then a line per kind of skip; `number` writes
    /// the counts (the command line groups thousands).
    public func lines(number: (Int) -> String = { String($0) }) -> [String] {
        let books = booksRead == 1 ? "1 book" : "\(number(booksRead)) books"
        let fields = fieldsMapped == 1 ? "1 field" : "\(number(fieldsMapped)) fields"
        return ["Read \(books) (\(fields) mapped)."] + skipped.map { "Skipped \(number($0.count)): \($0.reason)." }
            + noted.map { "Note, \(number($0.count)): \($0.reason)." }
    }
}
