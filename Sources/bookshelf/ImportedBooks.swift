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

    /// The books with the first one read: what the file was recognised as is known then, and
    /// whether its rows have ids.
    func started() -> StartedBooks {
        var iterator = makeIterator()
        let first = iterator.next()
        return StartedBooks(first: first, detected: iterator.stream.detected, rest: Locked(iterator))
    }

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

        mutating func next() -> SourcedBook? {
            do {
                while let event = try stream.next() {
                    if !told, let detected = stream.detected {
                        told = true
                        books.detected(detected)
                    }
                    books.progress(stream.bytesRead)
                    switch event {
                    case let .book(book):
                        if books.tally.withLock({ $0.problems == 0 }) { return book }
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

/// An import file's books after the first was read (`ImportedBooks.started`). Read once, by the
/// store's one transaction, on whichever thread it runs.
struct StartedBooks: Sequence, Sendable {
    let first: SourcedBook?
    let detected: DetectedSource?
    let rest: Locked<ImportedBooks.Iterator>

    /// The kind of source the books' origins name: the first book's, else what the file was
    /// recognised as; nil for Bookshelf's own CSV and JSON Lines, which have no ids.
    var origins: ImportSourceKind? {
        first?.origin?.source ?? detected?.source.originKind
    }

    func makeIterator() -> Iterator { Iterator(first: first, rest: rest) }

    struct Iterator: IteratorProtocol {
        var first: SourcedBook?
        let rest: Locked<ImportedBooks.Iterator>

        mutating func next() -> SourcedBook? {
            if let book = first {
                first = nil
                return book
            }
            return rest.withLock { $0.next() }
        }
    }
}

extension BookSource {
    /// The kind its books' origins name; nil for Bookshelf's own formats.
    var originKind: ImportSourceKind? {
        switch self {
        case .csv, .jsonLines: nil
        case .goodreads: .goodreads
        case .storyGraph: .storyGraph
        case .libraryThing: .libraryThing
        case .cslJSON: .cslJSON
        case .bibTeX: .bibtex
        }
    }
}

/// A sequence of sourced books as plain books, for an import that only adds (it keeps no origin).
struct WithoutOrigins<Base: Sequence<SourcedBook> & Sendable>: Sequence, Sendable {
    let base: Base

    func makeIterator() -> Iterator { Iterator(base: base.makeIterator()) }

    struct Iterator: IteratorProtocol {
        var base: Base.Iterator
        mutating func next() -> NewBook? { base.next()?.book }
    }
}
