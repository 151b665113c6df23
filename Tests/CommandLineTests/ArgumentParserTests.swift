@testable import bookshelf
import CommandLineOptions
import Foundation
import TerminalSafeText
import Testing

/// The command line's pure parts, tested directly; the binary tests cover them end to end.
@Suite struct ArgumentParserTests {
    private static let limit = Option.integer("limit", in: 1...20, help: "")
    private static let json = Flag("json", help: "")
    private let parser = ArgumentParser(options: [limit, json, Flag.help])

    @Test func readsEveryOptionSpelling() throws {
        let (parsed, rest) = try parser.parse(["a", "--limit", "5", "b", "--json", "-h"])
        #expect(rest == [])
        #expect(parsed.positionals == ["a", "b"])
        #expect(try parsed.value(Self.limit) == 5)
        #expect(parsed.isSet(Self.json) && parsed.isSet(.help))
        #expect(try parser.parse(["--limit=7"]).0.value(Self.limit) == 7)
        #expect(try parser.parse(["--limit", "1", "--limit", "2"]).0.value(Self.limit) == 2, "the last one wins")
    }

    @Test func doubleDashEndsOptionsAndALoneDashIsAnArgument() throws {
        let (parsed, _) = try parser.parse(["--json", "--", "-x", "--limit", "-"])
        #expect(parsed.positionals == ["-x", "--limit", "-"])
        #expect(parsed.isSet(Self.json))
        #expect(try parser.parse(["-"]).0.positionals == ["-"])
    }

    @Test func mistakesAreUsageErrors() {
        #expect(throws: UsageError("unknown option --nope (put -- before arguments that start with a dash)")) {
            try parser.parse(["--nope"])
        }
        #expect(throws: UsageError("unknown option -x (put -- before arguments that start with a dash)")) {
            try parser.parse(["-x"])
        }
        #expect(throws: UsageError("--limit N needs a value")) { try parser.parse(["--limit"]) }
        #expect(throws: UsageError("--json takes no value")) { try parser.parse(["--json=1"]) }
        #expect(throws: UsageError.self) { try parser.parse(["-hj"]) }
    }

    @Test func stopsAtTheCommandNameWhenAsked() throws {
        let (parsed, rest) = try parser.parse(["--json", "search", "--limit", "3"], stopAtPositional: true)
        #expect(parsed.isSet(Self.json))
        #expect(rest == ["search", "--limit", "3"])
    }

    @Test func integersAreCheckedAgainstTheirRange() throws {
        let parsed = try parser.parse(["--limit", "12"]).0
        #expect(try parsed.value(Self.limit, default: 5) == 12)
        #expect(try ParsedArguments().value(Self.limit, default: 5) == 5)
        #expect(try ParsedArguments().value(Self.limit) == nil)
        let tooBig = try parser.parse(["--limit", "21"]).0
        #expect(throws: UsageError("--limit needs a whole number from 1 to 20, not \"21\"")) {
            try tooBig.value(Self.limit)
        }
        #expect(throws: UsageError.self) { try parser.parse(["--limit", "1e3"]).0.value(Self.limit) }
        #expect(throws: UsageError.self) { try parser.parse(["--limit="]).0.value(Self.limit) }
        let hostile = try parser.parse(["--limit", "\u{1B}[2J"]).0
        #expect(throws: UsageError("--limit needs a whole number from 1 to 20, not \"\u{FFFD}[2J\"")) {
            try hostile.value(Self.limit)
        }
    }

    @Test func aValueIsGivenOrNotWhateverItIs() throws {
        let text = Option<String>("name", value: "NAME", help: "")
        let parsed = try ArgumentParser(options: [text]).parse(["--name="]).0
        #expect(parsed.isGiven(text) && parsed.value(text) == "")
        #expect(!ParsedArguments().isGiven(text))
        #expect(parsed.givenNames == ["name"])
    }

    @Test func theCatalogLocationRules() throws {
        #expect(
            try CatalogLocation.resolve(option: "/o.sqlite", environment: ["BOOKSHELF_DB": "/e.sqlite"]) == "/o.sqlite")
        #expect(
            try CatalogLocation.resolve(option: nil, environment: ["BOOKSHELF_DB": "/e.sqlite", "XDG_DATA_HOME": "/x"])
                == "/e.sqlite")
        #expect(
            try CatalogLocation.resolve(
                option: nil, environment: ["BOOKSHELF_DB": "", "XDG_DATA_HOME": "/x/", "HOME": "/h"])
                == "/x/bookshelf/catalog.sqlite")
        #expect(
            try CatalogLocation.resolve(option: nil, environment: ["XDG_DATA_HOME": "rel", "HOME": "/h"])
                == "/h/.local/share/bookshelf/catalog.sqlite")
        #expect(throws: UsageError.self) { try CatalogLocation.resolve(option: nil, environment: [:]) }
        #expect(throws: UsageError.self) { try CatalogLocation.resolve(option: "", environment: ["HOME": "/h"]) }
    }

    @Test func storeTextNeverReachesTheTerminalAsControlCharacters() throws {
        let hostile = "Evil\u{1B}[2J\ttitle\u{7}\u{202E}txt.exe\u{9B}31m\nend"
        let shown = TerminalText.sanitized(hostile)
        #expect(
            !shown.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" })
        #expect(shown == "Evil\u{FFFD}[2J\u{FFFD}title\u{FFFD}\u{FFFD}txt.exe\u{FFFD}31m\u{FFFD}end")
        #expect(TerminalText.sanitized("Café 日本の歴史 🍅") == "Café 日本の歴史 🍅")

        let json = JSONText.quoted(hostile + " \"quoted\" back\\slash 🍅")
        #expect(
            !json.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" })
        let decoded = try JSONSerialization.jsonObject(with: Data("[\(json)]".utf8)) as? [String]
        #expect(decoded == [hostile + " \"quoted\" back\\slash 🍅"], "JSON keeps the exact text")
    }

    @Test func everyCommandIsInTheTableWithUniqueOptions() {
        let names = Bookshelf.commands.map(\.name)
        #expect(Set(names).count == names.count)
        for command in Bookshelf.commands + [InteractiveMode.command] {
            let options = command.allOptions.map(\.spec.name)
            #expect(Set(options).count == options.count, "\(command.name)")
            #expect(command.help.contains("Usage: bookshelf"))
        }
    }
}
