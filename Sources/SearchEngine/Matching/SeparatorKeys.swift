import BookCatalog
import Dispatch

/// The title keys from `from` up to `upTo`, in SQLite's order (the bytes'). Not a `Range`:
/// Swift orders strings by their normalised forms, and a bound may be a character that
/// normalises to another (U+0340 to U+0300), as no stored key does.
package struct KeyRange: Equatable {
    package let from: String
    package let upTo: String
}

/// The title keys that begin with a character that only separates tokens (punctuation, spaces,
/// marks: not `SearchTerms.beginsAToken`), as ranges of keys, one per run of such characters in
/// the Basic Multilingual Plane: 463 runs, 383 of them below "日". A title beginning with one of
/// them may begin with any token after it.
package enum SeparatorKeys {
    /// Each run's first scalar and the scalar after its last, in order: those of ASCII, which
    /// most first characters need, and those of the whole plane, told apart on first use (longer:
    /// a first key in ASCII does not wait for it).
    private static let asciiRuns = runs(below: 0x80)
    private static let planeRuns = runs(below: 0x10000)

    /// Tells the plane's runs apart on another thread, once, before a first key beyond ASCII
    /// needs them. Called when an index build starts (`IndexPreparation`), since only a search
    /// without an index reads the title order: a process whose stored index is current never
    /// pays for them, and a one-shot `bookshelf search` no longer spends its CPU on them
    /// (`bookshelf-bench cli` shows the process's time; docs/performance.md has the steps).
    package static func prepare() { _ = preparing }
    private static let preparing: Void = DispatchQueue.global(qos: .utility).async { _ = planeRuns }

    private static func runs(below end: UInt32) -> [(first: UInt32, after: UInt32)] {
        var runs: [(first: UInt32, after: UInt32)] = []
        var first: UInt32?
        for value in UInt32(0)..<end {
            let separates = Unicode.Scalar(value).map { !SearchTerms.beginsAToken($0) }
            // Surrogate code points are no scalars and begin no key: they neither end nor start a run.
            guard let separates else { continue }
            if separates, first == nil { first = value }
            if !separates, let start = first {
                runs.append((start, value))
                first = nil
            }
        }
        if let first { runs.append((first, end)) }
        return runs
    }

    /// The ranges of keys beginning with a separating character below `lead`, in key order.
    package static func ranges(below lead: Unicode.Scalar) -> [KeyRange] {
        (lead.isASCII ? asciiRuns : planeRuns).prefix { $0.first < lead.value }.map { run in
            KeyRange(from: key(run.first), upTo: key(min(run.after, lead.value)))
        }
    }

    /// The key that is the character `value` alone (UTF-8 keeps the scalars' order). Runs
    /// begin and end at scalars, never at a surrogate code point.
    private static func key(_ value: UInt32) -> String {
        value == 0 ? "" : String(Unicode.Scalar(value)!)
    }
}
