import BookCatalog
import CatalogImport
import Foundation
import Locking

/// The file `bookshelf import` reads, opened before the catalog is touched: a descriptor read
/// a chunk at a time, never the whole file at once.
struct ImportInput: Sendable {
    let descriptor: Int32
    /// The size of a regular file; nil for standard input or a pipe.
    let size: Int?

    static func open(_ file: String) throws(CommandFailure) -> ImportInput {
        let shown = file == "-" ? "standard input" : file.printable
        let descriptor = file == "-" ? STDIN_FILENO : Glibc.open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CommandFailure("cannot read \(shown): \(String(cString: strerror(errno)))") }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw CommandFailure("cannot read \(shown): \(String(cString: strerror(errno)))")
        }
        if status.st_mode & S_IFMT == S_IFDIR {
            throw CommandFailure("cannot read \(shown): \(String(cString: strerror(EISDIR)))")
        }
        return ImportInput(descriptor: descriptor, size: status.st_mode & S_IFMT == S_IFREG ? Int(status.st_size) : nil)
    }

    /// The next chunk, empty at the end.
    func read() throws(CommandFailure) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: BookImportStream.chunkBytes)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count >= 0 {
                chunk.removeSubrange(count...)
                return chunk
            }
            if errno != EINTR { throw CommandFailure("cannot read the file: \(String(cString: strerror(errno)))") }
        }
    }

    func close() {
        if descriptor != STDIN_FILENO { _ = Glibc.close(descriptor) }
    }
}

/// What a streamed import met on its way: bad lines, a read that failed, the summary at the end.
struct ImportTally: Sendable {
    var problems = 0
    var readFailure: CommandFailure?
    var summary = ImportSummary()
    var bytesRead = 0
    var finished = false

    /// Only a file read to its end with no bad line may be committed.
    var isComplete: Bool { finished && problems == 0 && readFailure == nil }
}

/// The books of an import file as they are read, for a store's one transaction: after the
/// first bad line no more books are given (the store will be told to withdraw), but the file
/// is still read to its end, so one run names every bad line. `problem` is told each bad line
/// as it is found; `tally` holds what the command reports at the end.
struct ImportedBooks: Sequence, Sendable {
    let input: ImportInput
    /// Nil: recognised from the file's first chunk.
    let source: BookSource?
    let fileName: String
    let restoring: Bool
    let tally: Locked<ImportTally>
    /// Told once what the file is read as, when its first chunk is read.
    let detected: @Sendable (DetectedSource) -> Void
    let problem: @Sendable (BookImportProblem) -> Void
    let progress: @Sendable (Int) -> Void
    /// Told once the file has been read to its end, or could not be.
    let ended: @Sendable () -> Void

    func makeIterator() -> Iterator {
        let input = input
        return Iterator(
            stream: BookSourceStream(source: source, fileName: fileName, restoring: restoring) { try input.read() },
            books: self)
    }

    struct Iterator: IteratorProtocol {
        var stream: BookSourceStream
        let books: ImportedBooks
        private var told = false

        init(stream: BookSourceStream, books: ImportedBooks) {
            self.stream = stream
            self.books = books
        }

        mutating func next() -> NewBook? {
            do {
                while let event = try stream.next() {
                    if !told, let detected = stream.detected {
                        told = true
                        books.detected(detected)
                    }
                    books.progress(stream.bytesRead)
                    switch event {
                    case let .book(book):
                        if books.tally.withLock({ $0.problems == 0 }) { return book.book }
                    case let .problem(problem):
                        books.tally.withLock { $0.problems += 1 }
                        books.problem(problem)
                    }
                }
            } catch {
                let failure = error as? CommandFailure ?? CommandFailure("cannot read the file: \(error)")
                books.tally.withLock { $0.readFailure = failure }
                books.ended()
                return nil
            }
            let summary = stream.summary, bytes = stream.bytesRead
            books.tally.withLock {
                $0.summary = summary
                $0.bytesRead = bytes
                $0.finished = true
            }
            books.progress(bytes)
            books.ended()
            return nil
        }
    }
}
