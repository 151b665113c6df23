import BookCatalog
import Foundation
import Testing

// What the contract checks and the stores' own tests use. The SQLite catalog's tests
// (Tests/SQLiteCatalogTests/Support) read this very file through a symbolic link and compile
// a copy of their own, as they did while it was a test target's file; they do not import this
// module.

/// A book to seed a catalog with, and the scope it belongs to.
public struct SeedBook: Sendable {
    public let title: String
    public let author: String
    public let scope: String

    public init(_ title: String, by author: String = "", scope: String = "main") {
        self.title = title
        self.author = author
        self.scope = scope
    }
}

/// Deterministic books over a small vocabulary full of shared prefixes, accents and CJK.
public struct GeneratedBooks {
    private var state: UInt64
    private static let words = [
        "alpha", "alps", "Álbum", "album", "beta", "bet", "Gamma", "history", "histoire", "Rome",
        "roman", "of", "the", "東", "京", "東京", "café", "Cafe", "zoë", "Zoo", "2nd", "e\u{301}t\u{e9}",
        "l'été", "hi-fi", "A", "ß", "œuvre", "Œuvres", "oeuvre", "Søren", "soren",
        "Łódź", "lodz", "Æon", "aeon", "Þorn", "thorn", "Straße", "strasse", "ıi", "Đorđe",
    ]

    public init(seed: UInt64) { state = seed }

    public mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }

    public mutating func phrase(_ count: Int) -> String {
        (0..<count).map { _ in Self.words[next(Self.words.count)] }.joined(separator: next(4) == 0 ? ": " : " ")
    }

    public mutating func book() -> SeedBook {
        SeedBook(phrase(1 + next(4)), by: phrase(next(3)))
    }

    public mutating func query() -> String {
        let word = Self.words[next(Self.words.count)]
        let cut = String(word.prefix(1 + next(word.count)))
        return next(3) == 0 ? cut + " " + String(Self.words[next(Self.words.count)].prefix(2)) : cut
    }
}

/// A directory under the system's temporary directory, removed when the last copy is gone.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("bookshelf-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Runs `body`, which must fail with exactly `expected`.
public func expectFailure(
    _ expected: BookFailure, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("expected \(expected), but the call succeeded", sourceLocation: sourceLocation)
    } catch let failure as BookFailure {
        #expect(failure == expected, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(expected), got \(error)", sourceLocation: sourceLocation)
    }
}
