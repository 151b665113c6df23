import BookCatalog
import CatalogSimulation
import CommandLineOptions
import Foundation

// bookshelf-demo: the naive model beside the real one, on scripted latency.
// Only this executable parses arguments; the scenes, panes and oracle live beside it.

func fail(_ message: String) -> Never {
    StandardStream.writeError("bookshelf-demo: \(message)\nTry 'bookshelf-demo --help'.\n")
    exit(2)
}

/// Writes `text` and a line break to standard output; a closed or full one is said on standard
/// error (a reader that went away is not) and ends the demo with status 3.
func output(_ text: String) {
    guard let reason = StandardStream.write(text + "\n", to: STDOUT_FILENO) else { return }
    if reason != EPIPE {
        StandardStream.writeError("bookshelf-demo: cannot write standard output: \(StandardStream.describe(reason))\n")
    }
    exit(3)
}

switch DemoOptions.parse(Array(CommandLine.arguments.dropFirst())) {
case .help:
    output(DemoOptions.help)
case let .failure(message):
    fail(message)
case let .run(options):
    let schedule: LatencySchedule
    do { schedule = try options.schedule() } catch { fail("--latency: \(error)") }
    if options.script {
        let result = await ScriptRun(options: options, schedule: schedule).run()
        output(result.transcript.joined(separator: "\n"))
        exit(result.realModelRight ? 0 : 1)
    } else {
        await InteractiveDemo.run(options: options, schedule: schedule)
    }
}
