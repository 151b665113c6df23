import Foundation
import Testing

/// Package.swift declares exactly the package modules each target imports: nothing compiles
/// by accident through another target's dependency, and nothing is linked that is not used.
@Suite("The manifest")
struct ManifestTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Target {
        let name: String
        let path: String
        let dependencies: Set<String>
    }

    /// Declared dependencies that are run, not imported: the end-to-end tests start the bench's
    /// writer processes (the demo they also import); the command-line tests install the demo;
    /// the EmbedSQL build plugin runs its tool.
    static let runOnly: [String: Set<String>] = [
        "EndToEndTests": ["bookshelf-bench"], "CommandLineTests": ["bookshelf-demo"],
        "EmbedSQL": ["embed-sql"],
    ]

    static func targets(in manifest: String) throws -> [Target] {
        let pattern = try NSRegularExpression(
            pattern: #"\.(target|executableTarget|testTarget|systemLibrary|plugin)\(\s*name:\s*"([^"]+)""#)
        let text = manifest as NSString
        let matches = pattern.matches(in: manifest, range: NSRange(location: 0, length: text.length))
        return matches.enumerated().map { index, match in
            let end = index + 1 < matches.count ? matches[index + 1].range.location : text.length
            let body = text.substring(with: NSRange(location: match.range.location, length: end - match.range.location))
            let kind = text.substring(with: match.range(at: 1))
            let name = text.substring(with: match.range(at: 2))
            let dependencies =
                body.range(of: "dependencies:").map { start -> Set<String> in
                    let list = body[start.upperBound...].prefix { $0 != "]" }
                    return Set(
                        list.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map {
                            String($0.element)
                        })
                } ?? []
            let explicitPath = body.range(of: #"path: "([^"]+)""#, options: .regularExpression)
                .map { String(body[$0].dropFirst(7).dropLast()) }
            let folder = ["testTarget": "Tests/", "plugin": "Plugins/"][kind] ?? "Sources/"
            let path = explicitPath ?? folder + name
            return Target(name: name, path: path, dependencies: dependencies)
        }
    }

    /// The folders directly under `folder` (relative to the package root).
    static func moduleFolders(under folder: String) -> [String] {
        let directory = root.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(
                atPath: directory.appendingPathComponent(name).path, isDirectory: &isDirectory) && isDirectory.boolValue
        }.sorted()
    }

    static func imports(under path: String, modules: Set<String>) throws -> Set<String> {
        let directory = root.appendingPathComponent(path)
        guard let files = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        var found: Set<String> = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n")
            where line.hasPrefix("import ") || line.hasPrefix("@testable import ") {
                guard let module = line.split(separator: " ").last.map(String.init),
                    let declared = modules.first(where: {
                        $0.replacingOccurrences(of: "-", with: "_") == module
                    })
                else { continue }
                found.insert(declared)
            }
        }
        return found
    }

    @Test("every target declares exactly the package modules it imports")
    func dependenciesAreTheImports() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let targets = try Self.targets(in: manifest)
        #expect(targets.count > 10, "the manifest's targets were found")
        let modules = Set(targets.map(\.name))
        for target in targets {
            let imported = try Self.imports(under: target.path, modules: modules)
            let declared = target.dependencies.subtracting(Self.runOnly[target.name] ?? [])
            #expect(
                imported.subtracting(declared).isEmpty,
                "\(target.name) imports \(imported.subtracting(declared).sorted()) without declaring them")
            #expect(
                declared.subtracting(imported).isEmpty,
                "\(target.name) declares \(declared.subtracting(imported).sorted()) without importing them")
        }
    }
}
