#if canImport(Glibc)
    import Glibc
#endif

/// The process's environment, as `ProcessInfo.processInfo.environment` gives it, read from
/// `environ` directly: Foundation's builds its dictionary through its own string bridging, a
/// few per cent of a whole `bookshelf search` (`perf record` over its runs; `bookshelf-bench cli`).
enum ProcessEnvironment {
    static func current() -> [String: String] {
        read(environ)
    }

    /// The variables of a C array of `NAME=value` entries ending in a null pointer. As Foundation
    /// does: an entry without "=" or that is not UTF-8 is skipped, and a name given twice keeps its
    /// last value.
    static func read(_ entries: UnsafePointer<UnsafeMutablePointer<CChar>?>) -> [String: String] {
        var environment: [String: String] = [:]
        var next = entries
        while let entry = next.pointee {
            next += 1
            guard let text = String(validatingCString: entry), let equals = text.utf8.firstIndex(of: UInt8(ascii: "="))
            else { continue }
            environment[String(text[..<equals])] = String(text[text.utf8.index(after: equals)...])
        }
        return environment
    }
}
