import BookCatalog
import Foundation
import SearchEngine

/// The catalog file as bytes, for fuzzing: a valid catalog with byte edits, opened and searched
/// through the path a user's `bookshelf search` takes (`SQLiteCatalog.open`, a remote, its
/// index build). Every outcome must be an answer or a refusal (`SQLiteCatalogError`, or the
/// damaged-catalog `BookFailure`): never a trap, a hang or a read out of bounds.
public enum CatalogFileProbe {
    /// A small catalog's file, made once: 200 books in scope "main", one reader.
    public static func intactCatalog(in directory: String) throws -> [UInt8] {
        let path = directory + "/intact.sqlite"
        do {
            let catalog = try SQLiteCatalog.open(path: path, create: true)
            try catalog.addAccount(Account(name: "reader", role: .reader, scope: "main"))
            let words = ["alpha", "Rome", "history", "of", "the", "東京", "café", "zoë", "hi-fi", "2nd"]
            try catalog.insertBooks(
                (0..<200).map { index in
                    NewBook(
                        title: "\(words[index % 10]) \(words[index / 10 % 10]) \(index)", author: words[index * 7 % 10])
                }, scope: "main")
        }
        defer { for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) } }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Writes `bytes` to `path`, opens it as a catalog and searches it before and after its
    /// index is built. Answers how many searches answered; the files are removed afterwards.
    public static func openAndSearch(_ bytes: [UInt8], at path: String, queries: [String]) async -> Int {
        defer {
            for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
            unlink(SearchIndexSnapshot.path(catalogPath: path, scope: "main"))
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)),
            let catalog = try? SQLiteCatalog.open(path: path, create: false),
            let remote = try? catalog.remote(account: "reader")
        else { return 0 }
        var answered = 0
        for step in 0..<2 {
            if step == 1 { _ = try? await remote.searchIndexReport() }
            for text in queries where (try? await remote.search(SearchQuery(text: text, limit: 50))) != nil {
                answered += 1
            }
        }
        await remote.finishIndexPreparation()
        return answered
    }
}
