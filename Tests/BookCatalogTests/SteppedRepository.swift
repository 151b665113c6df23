import BookCatalog
import CatalogSimulation

/// A repository over a `SteppedRemote` holding `books`, for tests that choose the order of
/// every store step and answer; with `keepingRecords`, the store also keeps an operation log.
func steppedRepository(
    _ books: BookRecord..., savesCommitOnArrival: Bool = false, keepingRecords: Bool = false
) -> (remote: SteppedRemote, repository: BookRepository) {
    let remote = SteppedRemote(books: books, savesCommitOnArrival: savesCommitOnArrival)
    let repository = BookRepository(remote: keepingRecords ? remote.keepingRecords : remote)
    return (remote, repository)
}
