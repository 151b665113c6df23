import BookCatalog
import CatalogSimulation
import Foundation

// bookshelf-demo: the naive model beside the real one, on scripted latency.
// Only this executable parses arguments; the scenes, panes and oracle live beside it.

func fail(_ message: String) -> Never {
    try? FileHandle.standardError.write(
        contentsOf: Data("bookshelf-demo: \(message)\nTry 'bookshelf-demo --help'.\n".utf8))
    exit(2)
}

switch DemoOptions.parse(Array(CommandLine.arguments.dropFirst())) {
case .help:
    print(DemoOptions.help)
case let .failure(message):
    fail(message)
case let .run(options):
    let schedule: LatencySchedule
    do { schedule = try options.schedule() } catch { fail("--latency: \(error)") }
    if options.script {
        let result = await ScriptRun(options: options, schedule: schedule).run()
        print(result.transcript.joined(separator: "\n"))
        exit(result.realModelRight ? 0 : 1)
    } else {
        await InteractiveDemo.run(options: options, schedule: schedule)
    }
}
