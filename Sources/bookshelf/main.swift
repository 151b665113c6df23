import BookshelfUI
import CommandLineOptions

#if canImport(Glibc)
    import Glibc
#endif

// Everything lives in `Bookshelf`; this file only connects it to the process.
// First of all, before any file is opened: a closed standard descriptor is held by
// /dev/null, so that no catalog, index or event descriptor takes its number and receives
// results meant for the user.
let closedAtStart = StandardStream.holdClosedDescriptors()
// Before the first `await`, while this is the only thread: glibc gives a thread its arena when
// it first allocates, so a limit set later (as it was, in the command) left the thread that ran
// the command with an arena of its own, grown a page at a time by `mprotect` (`strace -f
// bookshelf search`; `bookshelf-bench cli`).
MallocArenas.limitToOne()
let status = await Bookshelf.main(
    arguments: Array(CommandLine.arguments.dropFirst()), standardOutputWasClosed: closedAtStart.contains(STDOUT_FILENO),
    environment: ProcessEnvironment.current())
exit(status)
