import SearchEngine

extension SQLiteBookRemote {
    /// Gives up the search index being prepared, if any (`SearchEngineHost.abandonIndexPreparation`):
    /// for a command that has done its searching and now only saves, such as a bulk edit.
    public func stopPreparingIndex() {
        abandonIndexPreparation()
    }
}
