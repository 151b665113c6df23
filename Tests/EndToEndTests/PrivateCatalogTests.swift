import BookshelfTestSupport
import Foundation
import SQLiteCatalog
import TestTags
import Testing

/// The catalog nobody named is private: its folder 0700 and every file in it 0600, whatever
/// the umask. A catalog named with --db keeps the umask, since it may be shared on purpose.
@Suite(.tags(.process)) struct PrivateCatalogTests {
    /// Runs `bookshelf arguments` under `umask`, as a user's shell would.
    func run(_ process: BookshelfProcess, umask: String, _ arguments: [String], environment overrides: [String: String])
        throws -> Int32
    {
        let binary = try #require(BookshelfProcess.binary)
        let command = ([binary.path] + arguments).map(shellQuoted).joined(separator: " ")
        var environment = ProcessInfo.processInfo.environment
        environment["BOOKSHELF_DB"] = nil
        environment["XDG_DATA_HOME"] = nil
        environment["HOME"] = process.path("home")
        environment.merge(overrides) { _, new in new }
        return try ChildProcess.run(
            ["/bin/sh", "-c", "umask \(umask); exec \(command) >/dev/null"],
            output: process.path("output"), environment: environment)
    }

    func permissions(_ path: String) throws -> Int {
        try #require((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue)
    }

    /// Every file the folder holds, with a second connection open so the -wal and -shm
    /// files are there to be looked at.
    func filesWhileOpen(_ folder: String, catalog: String) throws -> [String: Int] {
        let open = try SQLiteCatalog.open(path: catalog, create: false)
        _ = try open.bookCount(scope: "main")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        return try Dictionary(uniqueKeysWithValues: names.map { ($0, try permissions(folder + "/" + $0)) })
    }

    @Test(arguments: ["XDG_DATA_HOME", "HOME"])
    func theDefaultCatalogIsPrivateWhateverTheUmask(_ variable: String) throws {
        let process = try BookshelfProcess()
        defer { process.remove() }
        let overrides = variable == "HOME" ? [:] : ["XDG_DATA_HOME": process.path("data")]
        let folder =
            variable == "HOME" ? process.path("home") + "/.local/share/bookshelf" : process.path("data") + "/bookshelf"
        #expect(try run(process, umask: "000", ["setup"], environment: overrides) == 0)
        #expect(try run(process, umask: "000", ["search", "rome"], environment: overrides) == 0)
        #expect(try permissions(folder) == 0o700)
        let files = try filesWhileOpen(folder, catalog: folder + "/catalog.sqlite")
        #expect(
            files.keys.contains("catalog.sqlite") && files.keys.contains("catalog.sqlite-wal")
                && files.keys.contains("catalog.sqlite-shm"), "\(files)")
        #expect(files.keys.contains { $0.hasPrefix("catalog.sqlite-search-") }, "the search index was stored: \(files)")
        for (name, mode) in files {
            #expect(mode == 0o600, "\(name) is \(String(mode, radix: 8))")
        }
    }

    @Test func aNamedCatalogKeepsTheUmask() throws {
        let process = try BookshelfProcess()
        defer { process.remove() }
        let folder = process.path("shared")
        let db = folder + "/books.sqlite"
        #expect(try run(process, umask: "022", ["setup", "--db", db], environment: [:]) == 0)
        #expect(try run(process, umask: "022", ["search", "rome", "--db", db], environment: [:]) == 0)
        #expect(try permissions(folder) == 0o755)
        let files = try filesWhileOpen(folder, catalog: db)
        #expect(files.keys.contains { $0.hasPrefix("books.sqlite-search-") }, "\(files)")
        for (name, mode) in files {
            #expect(mode == 0o644, "\(name) is \(String(mode, radix: 8))")
        }
    }
}
