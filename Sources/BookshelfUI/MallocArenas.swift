#if canImport(Glibc)
    import Glibc

    /// glibc's `mallopt`, which Swift's Glibc module does not export.
    @_silgen_name("mallopt")
    private func mallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif

/// How the interactive app asks glibc to keep its memory together. glibc gives each thread
/// that allocates at the same time as another an arena of its own and keeps what was freed
/// in each: over a long session the app's resident memory grew in steps while the memory it
/// held stayed flat (`bookshelf-bench session --many-arenas` against `session`). The app
/// allocates from a few threads at most, so one arena costs it no measurable contention, and
/// a session's memory stays flat.
public enum MallocArenas {
    /// Limits the process to one arena. Call once, early; does nothing off glibc.
    public static func limitToOne() {
        #if canImport(Glibc)
            _ = mallopt(-8 /* M_ARENA_MAX */, 1)
        #endif
    }
}
