import BookCatalog
import BookshelfTestSupport
import Foundation
import SQLiteCatalog
import SearchEngine
import TestTags
import Testing

/// What a user meets when the file system under a catalog refuses writes: a read-only mount
/// and a full disk. Each test mounts a small tmpfs of its own, which only root may do; file
/// permissions alone cannot show a read-only catalog to root, and a real disk cannot be filled.
@Suite(
    .enabled(
        if: TmpfsMount.mayMount,
        "needs root and a tmpfs mount; with CI set a refused mount or a user other than root fails instead"),
    .tags(.process))
struct SQLiteFileSystemTests {
    // MARK: Read-only

    /// Read-only media: the catalog is searched, its history read, its index built in memory;
    /// a save says the catalog is read-only at its path; the file is never touched. A catalog
    /// to be created there is refused.
    @Test func aCatalogOnAReadOnlyFileSystemIsReadAndLeftUntouched() async throws {
        try await onTmpfs(size: "4m") { mount in
            let path = mount.path("catalog.sqlite")
            try makeCatalog(path, books: 20)
            // The catalog is released, so its connection is closed: the WAL was checkpointed
            // into the file and removed, and nothing holds the file open for writing.
            #expect(try mount.contents() == ["catalog.sqlite"])
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            try mount.remountReadOnly()

            for create in [false, true] {
                let catalog = try SQLiteCatalog.open(path: path, create: create)
                #expect(try catalog.bookCount(scope: "main") == 20)
                let remote = try catalog.remote(account: "editor")
                let all = try await remote.search(SearchQuery(text: "", limit: 100))
                #expect(all.records.map(\.title) == (0..<20).map { "Book \($0)" }.sorted())
                let (report, stored) = try await remote.searchIndexReport()
                #expect(report.origin == .built && !stored && !report.mapped)
                #expect(try await remote.search(SearchQuery(text: "author 3", limit: 100)).records.count == 3)
                #expect(try await remote.history(of: all.records[0].id).count == 1)
                let book = all.records[0]
                await #expect(
                    throws: BookFailure.storeUnavailable(
                        "the catalog is read-only at \(path): nothing can be saved there")
                ) {
                    try await remote.save(id: book.id, title: "Changed", expectedRevision: book.revision)
                }
                #expect(throws: SQLiteCatalogError.readOnly(path: path)) {
                    try catalog.insertBooks([NewBook(title: "More", author: "")], scope: "main")
                }
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(try mount.contents() == ["catalog.sqlite"])

            let fresh = mount.path("new.sqlite")
            #expect(throws: SQLiteCatalogError.readOnly(path: fresh)) {
                try SQLiteCatalog.open(path: fresh, create: true)
            }
            #expect(try mount.contents() == ["catalog.sqlite"])
        }
    }

    // MARK: Disk full

    @Test func anImportThatFillsTheDiskFailsWholeAndKeepsWhatWasCommitted() async throws {
        try await onTmpfs(size: "2m") { mount in
            let path = mount.path("catalog.sqlite")
            let padding = String(repeating: "filling the disk ", count: 20)
            var committed = 0
            var batches = 0
            var failure: SQLiteCatalogError?
            do {
                let catalog = try SQLiteCatalog.open(path: path, create: true)
                // Each batch is one transaction; the WAL decides where exactly the disk runs
                // out, so the test only knows the count of the batches that succeeded.
                while failure == nil {
                    guard batches < 200 else {
                        Issue.record("\(committed) books did not fill a 2 MiB file system"); return
                    }
                    let books = (0..<100).map {
                        NewBook(title: "Batch \(batches) book \($0) \(padding)", author: "Filler")
                    }
                    do throws(SQLiteCatalogError) {
                        committed += try catalog.insertBooks(books, scope: "main")
                        batches += 1
                    } catch {
                        failure = error
                    }
                    #expect(try catalog.bookCount(scope: nil) == committed)
                }
                #expect(failure == .diskFull(path: path))
                #expect(batches > 0, "the disk was full before the first batch")
                let message = failure?.description ?? ""
                #expect(message.contains(path) && message.contains("full") && message.contains("nothing was changed"))
                // A small import may still fit in the space the failed batch left (where a batch
                // fails depends on the rows' layout); once none fits, it fails the same way and
                // adds nothing.
                var smallFailure: SQLiteCatalogError?
                for _ in 0..<100 where smallFailure == nil {
                    do throws(SQLiteCatalogError) {
                        committed += try catalog.insertBooks([NewBook(title: "One more \(padding)")], scope: "main")
                    } catch {
                        smallFailure = error
                    }
                }
                #expect(smallFailure == .diskFull(path: path))
                #expect(try catalog.bookCount(scope: "main") == committed)
            }
            // Closed on the full disk and opened again: exactly the committed batches.
            let reopened = try SQLiteCatalog.open(path: path, create: false)
            #expect(try reopened.bookCount(scope: nil) == committed)
            print("Disk full after \(batches) batches (\(committed) books) on a 2 MiB tmpfs")
        }
    }

    /// A closed catalog on a full disk: opening it to search needs a new -shm file, which
    /// SQLite cannot make. The message says that, not "disk I/O error".
    @Test func aSearchOnAFullDiskSaysTheSharedMemoryFileCannotBeMade() async throws {
        try await onTmpfs(size: "4m") { mount in
            let path = mount.path("catalog.sqlite")
            // Made and closed with no remote, so no background index build outlives it.
            do { try makeCatalog(path, books: 50) }
            #expect(!FileManager.default.fileExists(atPath: path + "-shm"), "closing removed the -shm file")
            _ = try mount.fill()
            let expected =
                "The disk holding \(path) is full: SQLite cannot make its shared-memory file "
                + "(\(path)-shm) beside the catalog. Free some space and try again; nothing was changed."
            do {
                let catalog = try SQLiteCatalog.open(path: path, create: false)
                let remote = try catalog.remote(account: "editor")
                do {
                    _ = try await remote.search(SearchQuery(text: "book"))
                    Issue.record("a search on a full disk answered")
                } catch {
                    await remote.finishIndexPreparation()
                    throw error
                }
            } catch let error as SQLiteCatalogError {
                #expect(error.description == expected, "\(error)")
            } catch let error as BookFailure {
                #expect(
                    error
                        == .storeUnavailable(
                            "the disk is full: SQLite cannot make the catalog's shared-memory file (-shm)"),
                    "\(error)")
            }
        }
    }

    @Test func aSaveOnAFullDiskFailsAsStoreUnavailableAndKeepsTheOldRevision() async throws {
        try await onTmpfs(size: "4m") { mount in
            let path = mount.path("catalog.sqlite")
            let catalog = try makeCatalog(path, books: 50)
            let remote = try catalog.remote(account: "editor")
            // The remote's background index build stores a snapshot: let it finish first.
            _ = try await remote.searchIndexReport()
            let original = try await remote.load(id: 1)

            // Another file takes every free page, so the save's WAL frames cannot be written.
            let filler = try mount.fill()
            await expectFailure(.storeUnavailable("the disk is full")) {
                _ = try await remote.save(SaveRequest(id: 1, title: "Saved on a full disk", expectedRevision: 1))
            }
            #expect(try await remote.load(id: 1) == original)
            #expect(try await remote.search(SearchQuery(text: "full disk")).total == 0)
            #expect(throws: SQLiteCatalogError.diskFull(path: path)) {
                try catalog.insertBooks([NewBook(title: "x")], scope: "main")
            }

            // Freeing space is all it takes: the same remote saves the same edit.
            try FileManager.default.removeItem(atPath: filler)
            let saved = try await remote.save(SaveRequest(id: 1, title: "Saved on a full disk", expectedRevision: 1))
            #expect(saved.revision == 2 && saved.title == "Saved on a full disk")
            #expect(try await remote.search(SearchQuery(text: "full disk")).records.map(\.id) == [1])
        }
    }

    // MARK: Helpers

    /// Runs `body` on a fresh tmpfs of `size` and unmounts it afterwards, also when `body`
    /// fails. Everything `body` opened is released by then, so the unmount finds nothing busy.
    private func onTmpfs(size: String, _ body: (TmpfsMount) async throws -> Void) async throws {
        let mount = try TmpfsMount(size: size)
        defer { mount.unmountRecordingIssues() }
        try await body(mount)
    }

    @discardableResult
    private func makeCatalog(_ path: String, books: Int) throws -> SQLiteCatalog {
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        try catalog.insertBooks(
            (0..<books).map { NewBook(title: "Book \($0)", author: "Author \($0 % 7)") }, scope: "main")
        return catalog
    }
}

/// When the file-system tests run: the rule itself, so it is checked wherever the suite runs.
@Suite(.tags(.process)) struct TmpfsMountPolicyTests {
    @Test func underCITheyRunForEveryUserAndOtherwiseOnlyWhenAMountWorks() {
        #expect(TmpfsMount.shouldRun(underCI: true, asRoot: false, probe: { false }), "CI, not root: run (and fail)")
        #expect(
            TmpfsMount.shouldRun(underCI: true, asRoot: true, probe: { false }), "CI, mount refused: run (and fail)")
        #expect(!TmpfsMount.shouldRun(underCI: false, asRoot: false, probe: { true }), "no CI, not root: skip")
        #expect(!TmpfsMount.shouldRun(underCI: false, asRoot: true, probe: { false }), "no CI, mount refused: skip")
        #expect(TmpfsMount.shouldRun(underCI: false, asRoot: true, probe: { true }))
    }
}

/// A small tmpfs mounted on a fresh temporary directory, for one test.
final class TmpfsMount {
    let directory: URL
    private var isMounted = false

    /// Whether these tests can run: as root, a probe mount must succeed, unless `CI` is set,
    /// where they always run, so that a refused mount (or a user who is not root) fails the
    /// tests rather than skipping them.
    static let mayMount: Bool = shouldRun(
        underCI: ProcessInfo.processInfo.environment["CI"] != nil, asRoot: geteuid() == 0,
        probe: { (try? TmpfsMount(size: "64k")).map { (try? $0.unmount()) != nil } ?? false })

    static func shouldRun(underCI: Bool, asRoot: Bool, probe: () -> Bool) -> Bool {
        if underCI { return true }
        return asRoot && probe()
    }

    init(size: String) throws {
        guard geteuid() == 0 else {
            throw MountError(message: "mounting a tmpfs needs root; with CI set these tests fail instead of skipping")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bookshelf-tmpfs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            try Self.run(Self.tool("mount"), ["-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", directory.path])
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        isMounted = true
    }

    deinit { if isMounted { try? unmount() } }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The names in the mount, sorted.
    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    func remountReadOnly() throws {
        try Self.run(Self.tool("mount"), ["-o", "remount,ro", directory.path])
    }

    /// Writes a file until the file system has no free page left; answers its path.
    func fill() throws -> String {
        let path = self.path("filler")
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw MountError(message: "cannot create \(path): errno \(errno)") }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0x5A, count: 64 * 1024)
        var written = 0
        while true {
            let count = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == ENOSPC { return path }
                throw MountError(message: "writing \(path) failed: errno \(errno)")
            }
            written += count
            // A size limit that is not enforced would fill the machine's memory instead.
            guard written < 1 << 30 else { throw MountError(message: "the tmpfs took 1 GiB without filling up") }
        }
    }

    /// Unmounts. What a test released may still be let go of on other threads for a moment (a
    /// snapshot's mapping on `SnapshotUnmapping`'s queue, a remote kept by a task of its own until
    /// the task ends): the unmount is tried again while the file system is busy, for up to ten
    /// seconds. If something still holds it then, it is detached anyway (lazily), so that no
    /// mount outlives the test, and what was busy is reported.
    func unmount() throws {
        guard isMounted else { return }
        let deadline = ContinuousClock.now + .seconds(10)
        do {
            while true {
                SnapshotUnmapping.queue.sync {}
                do {
                    try Self.run(Self.tool("umount"), [directory.path])
                    break
                } catch let error as MountError where ContinuousClock.now < deadline && error.message.contains("busy") {
                    usleep(20_000)
                }
            }
        } catch {
            try Self.run(Self.tool("umount"), ["-l", directory.path])
            isMounted = false
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        isMounted = false
        try FileManager.default.removeItem(at: directory)
    }

    func unmountRecordingIssues() {
        do { try unmount() } catch { Issue.record("unmounting the test tmpfs: \(error)") }
    }

    private static func tool(_ name: String) -> String {
        ["/usr/bin/\(name)", "/bin/\(name)", "/usr/sbin/\(name)", "/sbin/\(name)"]
            .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/bin/\(name)"
    }

    /// Runs a short-lived tool (mount and umount exit at once) and fails with its message.
    private static func run(_ tool: String, _ arguments: [String]) throws {
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("mount-\(UUID().uuidString)").path
        defer { unlink(errors) }
        let status = try ChildProcess.run([tool] + arguments, errors: errors)
        guard status == 0 else {
            let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw MountError(message: "\(tool) \(arguments.joined(separator: " ")) exited with \(status): \(message)")
        }
    }
}

struct MountError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
