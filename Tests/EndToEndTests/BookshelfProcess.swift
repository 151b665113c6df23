import BookshelfTestSupport
import Foundation
import Testing

/// Runs the real `bookshelf` binary built next to this test bundle.
struct BookshelfProcess {
    struct Outcome {
        let status: Int32
        /// Standard output as text (a byte that is not valid UTF-8 reads as U+FFFD); `outputBytes` is exact.
        let output: String
        let outputBytes: [UInt8]
        let errors: String

        var outputLines: [String] { output.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
        var errorLines: [String] { errors.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
    }

    static let binary: URL? = BuildProducts.executable(named: "bookshelf")

    /// A scratch directory for one test: catalogs, import files and the child's output.
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bookshelf-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// libpq's variables emptied and its password file pointed at nothing: for a test against a
    /// scratch server, so that nothing from the test runner's own environment picks the server
    /// or the user.
    var withoutLibpqSettings: [String: String] {
        ["PGPASSWORD": "", "PGUSER": "", "PGHOST": "", "PGDATABASE": "", "PGPASSFILE": path("no-pgpass")]
    }

    /// Prepares a scratch server as a user does, with `bookshelf setup` (libpq's settings emptied).
    func setUp(_ server: PostgresScratchServer, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let setup = try run(["setup", "--db", server.conninfo()], environment: withoutLibpqSettings)
        #expect(setup.status == 0, "\(setup.errors)", sourceLocation: sourceLocation)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// A starter catalog made by `bookshelf setup`, as a user makes one; its path.
    func starterCatalog(_ name: String = "catalog.sqlite") throws -> String {
        let db = path(name)
        let outcome = try run(["setup", "--db", db])
        guard outcome.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: ["setup": outcome.errors]) }
        return db
    }

    /// Runs `bookshelf arguments` with a private HOME and no inherited catalog settings, so a
    /// test never touches a real user's catalog; `environment` adds or overrides variables.
    func run(_ arguments: [String], environment overrides: [String: String] = [:], input: String? = nil) throws
        -> Outcome
    {
        let binary = try #require(Self.binary, "the bookshelf executable was not found beside the test bundle")
        var environment = ProcessInfo.processInfo.environment
        for name in ["BOOKSHELF_DB", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"] { environment[name] = nil }
        environment["HOME"] = path("home")
        environment.merge(overrides) { _, new in new }

        // Files, not pipes: a child that writes a lot can never block on a full pipe.
        let outputFile = path("stdout-\(UUID().uuidString)")
        let errorFile = path("stderr-\(UUID().uuidString)")
        let inputFile = try input.map { try write("stdin-\(UUID().uuidString)", $0) } ?? "/dev/null"
        let ending = try ChildProcess.runToEnd(
            [binary.path] + arguments, input: inputFile, output: outputFile,
            errors: errorFile, environment: environment)
        #expect(ending.signal == nil, "bookshelf \(arguments) was killed by signal \(ending.signal ?? 0)")
        let outputBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: outputFile)))
        return Outcome(
            status: ending.status,
            output: String(decoding: outputBytes, as: UTF8.self),
            outputBytes: outputBytes,
            errors: try String(contentsOfFile: errorFile, encoding: .utf8))
    }

    func write(_ name: String, _ text: String) throws -> String {
        let file = path(name)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }
}

extension BookshelfProcess.Outcome {
    init(status: Int32, output: String, errors: String) {
        self.init(status: status, output: output, outputBytes: Array(output.utf8), errors: errors)
    }
}

/// The build's products directory holds both the test bundle and the package's
/// executables: look beside (and a few levels above, for a macOS bundle) the test binary.
enum BuildProducts {
    static func executable(named name: String) -> URL? {
        var directories: [URL] = []
        if let executable = Bundle.main.executableURL { directories.append(executable.deletingLastPathComponent()) }
        directories.append(Bundle.main.bundleURL)
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for start in directories {
            var directory = start
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
                    !isDirectory.boolValue,
                    FileManager.default.isExecutableFile(atPath: candidate.path)
                {
                    return candidate
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }
}
