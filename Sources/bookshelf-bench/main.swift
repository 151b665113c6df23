import Foundation

/// `bookshelf-bench MODE [options]`: one benchmark per mode. To add a mode, write a type
/// conforming to `BenchMode` in its own file and list it here.
let modes: [any BenchMode.Type] = [
    SearchBench.self, KeysBench.self, CliBench.self, PostgresBench.self, CompareBench.self, SQLiteSavesBench.self,
    SessionBench.self,
]

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = """
    usage: bookshelf-bench MODE [options]     (build with -c release for meaningful figures)

    modes:
    \(modes.map { "  \($0.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \($0.summary)" }.joined(separator: "\n"))

    `bookshelf-bench MODE --help` lists the options of a mode.
    """
guard let name = arguments.first, !["-h", "--help", "help"].contains(name) else {
    print(usage)
    exit(arguments.isEmpty ? 2 : 0)
}
guard let mode = modes.first(where: { $0.name == name }) else {
    try? FileHandle.standardError.write(contentsOf: Data("bookshelf-bench: unknown mode \"\(name)\"\n\n\(usage)\n".utf8))
    exit(2)
}
do {
    try await mode.run(Array(arguments.dropFirst()))
} catch {
    try? FileHandle.standardError.write(contentsOf: Data("bookshelf-bench \(name): \(error)\n".utf8))
    exit(1)
}
