import Foundation

/// The two places a source may keep its index file (`SearchSource.indexFilePath`): the source
/// chooses, since only it knows whether the folder of its file may be written.
package enum IndexFilePlace {
    /// Beside the catalog at `catalogPath`, one file per scope: for Bookshelf's own catalog, whose
    /// folder it writes anyway (SQLite's -wal and -shm files), so that the index goes where the
    /// catalog goes.
    package static func beside(catalogPath: String, scope: String) -> String {
        catalogPath + "-search-" + hash(scope)
    }

    /// In the user's cache folder, for a file whose folder must not be written (a Calibre
    /// library): `$XDG_CACHE_HOME/bookshelf/`, or `~/.cache/bookshelf/` when that is unset, empty
    /// or not absolute (the XDG base directory rules). The name is a hash of the file's absolute
    /// path and of the scope, so two libraries, or two scopes, never share a file. Nil when
    /// neither variable gives an absolute folder. The source makes the folder (`cacheFolder`)
    /// before the engine stores a file there; the file is derived data and checked before use
    /// like any other.
    package static func inCache(
        of sourcePath: String, scope: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        guard let folder = cacheFolder(environment: environment) else { return nil }
        let absolute = URL(fileURLWithPath: sourcePath).standardizedFileURL.path
        let name = (absolute as NSString).lastPathComponent
        return folder + "/" + name + "-" + hash(absolute) + "-search-" + hash(scope)
    }

    /// In the user's cache folder as `inCache(of:)`, named by `key` rather than by a path: a
    /// source's own lasting id for its books (a Calibre library's uuid), so that the library
    /// keeps its index when it is moved or renamed. `kind` begins the name ("calibre"); the key
    /// is hashed, so any text names one file.
    package static func inCache(
        kind: String, key: String, scope: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        guard let folder = cacheFolder(environment: environment) else { return nil }
        return folder + "/" + kind + "-" + hash(key) + "-search-" + hash(scope)
    }

    /// `$XDG_CACHE_HOME/bookshelf`, or `$HOME/.cache/bookshelf`; nil when neither is absolute.
    package static func cacheFolder(environment: [String: String]) -> String? {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return cache + "/bookshelf" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.cache/bookshelf" }
        return nil
    }

    /// FNV-1a of the bytes, in hexadecimal: a name for any text (a scope is any text).
    private static func hash(_ text: String) -> String {
        String(
            Array(text.utf8).reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 },
            radix: 16)
    }
}
