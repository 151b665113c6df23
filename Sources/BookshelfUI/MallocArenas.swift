#if canImport(Glibc)
    import Glibc

    /// glibc's `mallopt`, which Swift's Glibc module does not export.
    @_silgen_name("mallopt")
    private func mallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif

/// How every `bookshelf` process (the interactive app, a search, a bulk edit) asks glibc to keep
/// its memory together. glibc gives each thread that allocates at the same time as another an
/// arena of its own and keeps what was freed in each: over a long session the app's resident
/// memory grew in steps while the memory it held stayed flat (`bookshelf-bench session
/// --many-arenas` against `session`). A search process lives a few milliseconds, and each arena
/// is a new mapping it grows a page at a time (`strace -f bookshelf search`). Each allocates
/// from a few threads at most, so one arena costs it no measurable contention.
public enum MallocArenas {
    /// Limits the process to one arena; does nothing off glibc. Call once, while the process has
    /// one thread: a thread that has allocated already keeps the arena it was given.
    public static func limitToOne() {
        #if canImport(Glibc)
            _ = mallopt(-8 /* M_ARENA_MAX */, 1)
        #endif
    }
}
