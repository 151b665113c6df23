import CommandLineOptions
import Foundation

// Everything lives in `Bookshelf`; this file only connects it to the process.
// First of all, before any file is opened: a closed standard descriptor is held by
// /dev/null, so that no catalog, index or event descriptor takes its number and receives
// results meant for the user.
let closedAtStart = StandardStream.holdClosedDescriptors()
let status = await Bookshelf.main(
    arguments: Array(CommandLine.arguments.dropFirst()), standardOutputWasClosed: closedAtStart.contains(STDOUT_FILENO),
    environment: ProcessInfo.processInfo.environment)
exit(status)
