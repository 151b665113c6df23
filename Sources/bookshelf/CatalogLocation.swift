import CommandLineOptions

/// Where the catalog is, by the first rule that applies:
/// 1. `--db PATH`;
/// 2. the `BOOKSHELF_DB` environment variable;
/// 3. `$XDG_DATA_HOME/bookshelf/catalog.sqlite` (an absolute `XDG_DATA_HOME` only, as the
///    XDG spec says a relative one must be ignored);
/// 4. `$HOME/.local/share/bookshelf/catalog.sqlite`.
/// Pure: the environment is passed in, so the interactive mode and tests reuse it as is.
enum CatalogLocation {
    static let environmentVariable = "BOOKSHELF_DB"

    static func resolve(option: String?, environment: [String: String]) throws(UsageError) -> String {
        if let option {
            guard !option.isEmpty else { throw UsageError("--db needs a path, not an empty string") }
            return option
        }
        if let path = environment[environmentVariable], !path.isEmpty { return path }
        if let path = defaultPath(environment: environment) { return path }
        throw UsageError("cannot tell where the catalog is: pass --db PATH or set \(environmentVariable)")
    }

    /// Rules 3 and 4: the catalog nobody named, or nil when neither variable is usable.
    static func defaultPath(environment: [String: String]) -> String? {
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            return dataHome.trimmingTrailingSlashes + "/bookshelf/catalog.sqlite"
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return home.trimmingTrailingSlashes + "/.local/share/bookshelf/catalog.sqlite"
        }
        return nil
    }

    /// True when the user named the catalog (`--db` or `BOOKSHELF_DB`); false for the
    /// default location, the only place the interactive app creates a first-run sample.
    static func isExplicit(option: String?, environment: [String: String]) -> Bool {
        option != nil || !(environment[environmentVariable] ?? "").isEmpty
    }

    /// For help texts.
    static let explanation = """
        The catalog is --db PATH, else $\(environmentVariable), else
        $XDG_DATA_HOME/bookshelf/catalog.sqlite, else ~/.local/share/bookshelf/catalog.sqlite.
        """
}

private extension String {
    var trimmingTrailingSlashes: String {
        var text = self
        while text.count > 1, text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
