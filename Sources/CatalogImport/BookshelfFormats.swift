import BookCatalog

extension BookImport {
    /// Bookshelf's own CSV (`BookImportFormat.csv`), a `CSVFramer` record at a time: the header
    /// names `BookColumn`s, and each record after it is a book whose every field meets its rule
    /// (or, restoring, is taken as it is).
    struct CSVFormat: RecordFormat {
        private var columns: CSVColumns?
        private var headerRead = false

        /// A header refused for its size leaves nothing readable after it.
        var readsPastARefusedRecord: Bool { headerRead }

        mutating func begin(first: UnsafeBufferPointer<UInt8>, into collector: inout Collector) -> Bool {
            guard BookImport.hasOnlyCRLineEnds(first, from: 0) else { return true }
            collector.reject(
                line: 1,
                "the lines end in a carriage return (CR) alone, which is not supported; save the file with LF or CRLF line ends"
            )
            return false
        }

        mutating func read(record: UnsafeBufferPointer<UInt8>, line: Int, into collector: inout Collector) -> Bool {
            var reader = CSVReader(bytes: record, position: 0, line: line, isFinal: true)
            guard let outcome = reader.next() else { return true }
            if case let .record(line, fields) = outcome,
                fields.contains(where: { $0.byteCount > BookImportStream.maximumFieldBytes })
            {
                collector.reject(line: line, BookImportStream.fieldTooLong)
                return headerRead
            }
            guard headerRead else {
                headerRead = true
                columns = BookImport.csvColumns(outcome, into: &collector)
                return columns != nil
            }
            if let columns { BookImport.csvRecord(outcome, columns: columns, into: &collector) }
            return true
        }

        mutating func finish(into collector: inout Collector) {
            if !headerRead {
                collector.reject(line: 1, "the file is empty; the first line must name the columns, e.g. title,author")
            }
        }
    }

    /// Bookshelf's JSON Lines (`BookImportFormat.jsonLines`), a `LineFramer` line at a time.
    struct JSONLinesFormat: RecordFormat {
        var tooLongReason: String { BookImportStream.lineTooLong }

        func read(record: UnsafeBufferPointer<UInt8>, line: Int, into collector: inout Collector) -> Bool {
            BookImport.jsonLine(record, number: line, into: &collector)
            return true
        }
    }
}
