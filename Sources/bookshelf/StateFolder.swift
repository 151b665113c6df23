/// Bookshelf's state folder, `$XDG_STATE_HOME/bookshelf` (an absolute one only, as the XDG spec
/// says), else `$HOME/.local/state/bookshelf`; nil without either. Kept drafts, a Calibre
/// library's saves and batches, and the catalogs opened recently live in it.
enum StateFolder {
    static func path(environment: [String: String]) -> String? {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/bookshelf" }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return home + "/.local/state/bookshelf"
    }
}
