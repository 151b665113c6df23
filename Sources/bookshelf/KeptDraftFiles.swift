import BookCatalog
import BookshelfModel

#if canImport(Glibc)
    import Glibc
#endif

/// The app's `DraftKeeping`: one file a draft, as vim keeps swap files, in
/// `$XDG_STATE_HOME/bookshelf/drafts/` (else `~/.local/state/bookshelf/drafts/`), the folders
/// made 0700 and each file 0600. A file's name says its catalog, account and book (hashed: an
/// account name may hold any character); its content says them in full and is what is checked,
/// so another account's draft is never taken for this one's, whatever the name.
///
/// Writes are atomic (a temporary file, flushed, then renamed over the old one), so a process
/// killed while writing leaves the previous draft whole. Reads are bounded and checked
/// (`KeptDraftFile`); a file that cannot be read is set aside under another name and reported,
/// never deleted.
@MainActor
final class KeptDraftFiles: DraftKeeping {
    let directory: String
    /// Which catalog: the SQLite file's real path, or the PostgreSQL connection without its user.
    let catalog: String
    private let processID = getpid()
    /// A folder holding more names than this is not read to the end.
    static let maximumEntries = 100_000
    /// Drafts read at most at one start (each up to `KeptDraftFile.maximumBytes`, read while
    /// the session begins): more are left for the next.
    static let maximumDrafts = 20

    init(directory: String, catalog: String) {
        self.directory = directory
        self.catalog = catalog
    }

    /// Where drafts are kept: `$XDG_STATE_HOME/bookshelf/drafts` (an absolute one only, as the
    /// XDG spec says), else `$HOME/.local/state/bookshelf/drafts`; nil without either.
    static func directory(environment: [String: String]) -> String? {
        StateFolder.path(environment: environment).map { $0 + "/drafts" }
    }

    // MARK: DraftKeeping

    func keep(_ draft: KeptDraft) throws {
        let text = KeptDraftFile(catalog: catalog, owner: processID, draft: draft).text
        guard text.utf8.count <= KeptDraftFile.maximumBytes else {
            throw Failure("the draft is larger than \(KeptDraftFile.maximumBytes) bytes")
        }
        try StateFiles.makeFolders(directory)
        try StateFiles.write(
            Array(text.utf8), to: path(account: draft.account, bookID: draft.bookID),
            through: "\(directory)/.\(name(account: draft.account, bookID: draft.bookID)).\(processID).tmp")
    }

    func remove(account: String, bookID: Int) throws {
        let file = path(account: account, bookID: bookID)
        guard unlink(file) == 0 || errno == ENOENT else { throw Failure.system("cannot remove", file) }
    }

    func kept(account: String) -> KeptDraftsFound {
        var found = KeptDraftsFound()
        for (bookID, file) in files(of: account) {
            let content: KeptDraftFile
            do {
                content = try KeptDraftFile(bytes: try Self.read(file))
                guard content.draft.bookID == bookID else {
                    throw KeptDraftFile.Unreadable("its name and its book differ")
                }
            } catch {
                found.problems.append(setAside(file, because: error))
                continue
            }
            // A name shared by chance (or a file copied in) is left alone and never shown.
            guard content.catalog == catalog, content.draft.account == account else { continue }
            // That run is still going and has the draft open: it keeps it, or removes it.
            if content.owner != processID, Self.isRunning(content.owner) { continue }
            found.drafts.append(content.draft)
        }
        return found
    }

    // MARK: Files

    func path(account: String, bookID: Int) -> String { "\(directory)/\(name(account: account, bookID: bookID))" }

    private func name(account: String, bookID: Int) -> String { "\(prefix(account))\(bookID).draft" }

    private func prefix(_ account: String) -> String { "\(Self.hash(catalog))-\(Self.hash(account))-" }

    /// This account's draft files, by book.
    private func files(of account: String) -> [(Int, String)] {
        guard let folder = opendir(directory) else { return [] }
        defer { closedir(folder) }
        let prefix = prefix(account)
        var files: [(Int, String)] = []
        var seen = 0
        while seen < Self.maximumEntries, files.count < Self.maximumDrafts, let entry = readdir(folder) {
            seen += 1
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix(prefix), name.hasSuffix(".draft"),
                let bookID = Int(name.dropFirst(prefix.count).dropLast(".draft".count)), bookID > 0
            else { continue }
            files.append((bookID, "\(directory)/\(name)"))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// At most `KeptDraftFile.maximumBytes` and one more (to tell a larger file), of a regular
    /// file only (`StateFiles.read`).
    static func read(_ path: String) throws -> [UInt8] {
        guard let bytes = try StateFiles.read(path, limit: KeptDraftFile.maximumBytes) else {
            throw Failure("cannot open \(path): it is gone")
        }
        return bytes
    }

    /// Renames an unreadable file out of the way (kept for a person to look at) and says so.
    private func setAside(_ file: String, because error: any Error) -> String {
        guard let aside = StateFiles.setAside(file) else {
            return "A kept draft could not be read (\(error)) nor set aside: \(file)."
        }
        return "A kept draft could not be read (\(error)); it was set aside as \(aside)."
    }

    /// Whether process `id` still runs (one that is not ours to signal runs too).
    private static func isRunning(_ id: Int32) -> Bool { id > 0 && (kill(id, 0) == 0 || errno == EPERM) }

    /// FNV-1a, 64 bits, as 16 hex digits: a short stable name for any text (Swift's `Hasher`
    /// is seeded anew in every process).
    static func hash(_ text: String) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01b3
        }
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }

        static func system(_ what: String, _ path: String) -> Failure {
            Failure("\(what) \(path): \(String(cString: strerror(errno)))")
        }
    }
}
