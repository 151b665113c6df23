import Foundation

// Everything lives in `Bookshelf`; this file only connects it to the process.
let status = await Bookshelf.main(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment)
exit(status)
