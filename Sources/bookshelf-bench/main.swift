import BookshelfUI
import CommandLineOptions
import Foundation

// `bookshelf-bench MODE [options]`: one benchmark per mode (BenchCommandLine.modes).
// A usage error exits 2, a failed run 1.
switch BenchCommandLine.parse(Array(CommandLine.arguments.dropFirst())) {
case let .help(text):
    print(text)
case let .usageError(message):
    try? FileHandle.standardError.write(contentsOf: Data("\(message)\n".utf8))
    exit(2)
case let .run(mode, arguments):
    // As the app does, and as early: before the first `await` starts a second thread.
    if !arguments.isSet(KeysBench.manyArenas) { MallocArenas.limitToOne() }
    do {
        try await mode.run(arguments)
    } catch let error as UsageError {
        try? FileHandle.standardError.write(contentsOf: Data("\(BenchCommandLine.message(error, of: mode))\n".utf8))
        exit(2)
    } catch {
        try? FileHandle.standardError.write(contentsOf: Data("bookshelf-bench \(mode.name): \(error)\n".utf8))
        exit(1)
    }
}
