/// One JSON value read whole (a CSL-JSON item, a LibraryThing book), for the readers that need
/// its objects and arrays, not only its strings. Strings, numbers and the grammar are read by
/// `JSONLineParser.Reader`, the one JSON reader of the imports; nesting is bounded.
indirect enum JSONTree: Equatable {
    case string(String)
    case number(String)
    case null
    /// A boolean: no field of a book is one.
    case boolean
    case array([JSONTree])
    case object([Member])

    struct Member: Equatable {
        let key: String
        let value: JSONTree
    }

    /// Deeper nesting is refused: no book needs more, and the reader recurses.
    static let maximumDepth = 32

    /// The value of `key` in an object; nil for anything else or a missing key.
    subscript(_ key: String) -> JSONTree? {
        guard case let .object(members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// A string, or a number as written; nil for anything else.
    var text: String? {
        switch self {
        case let .string(text), let .number(text): text
        default: nil
        }
    }

    /// What the value is, for a message.
    var kind: String {
        switch self {
        case .string: "a string"
        case .number: "a number"
        case .null: "null"
        case .boolean: "a boolean"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The one value `bytes` hold (whitespace around it allowed).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONLineParser.Failure) -> JSONTree {
        var reader = JSONLineParser.Reader(bytes: bytes)
        let value = try read(&reader, depth: 1)
        reader.skipWhitespace()
        guard reader.atEnd else { throw reader.failure("unexpected text after the value") }
        return value
    }

    /// A member of an object, `"key": value`, as the records of LibraryThing's JSON are.
    static func parseMember(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONLineParser.Failure) -> Member {
        var reader = JSONLineParser.Reader(bytes: bytes)
        reader.skipWhitespace()
        guard reader.peek == UInt8(ascii: "\"") else { throw reader.failure("expected a quoted key") }
        guard case let .string(key) = try reader.readString() else { throw reader.failure("a key is not valid UTF-8") }
        try reader.expect(":", "':' after a key")
        let value = try read(&reader, depth: 1)
        reader.skipWhitespace()
        guard reader.atEnd else { throw reader.failure("unexpected text after the value") }
        return Member(key: key, value: value)
    }

    private static func read(_ reader: inout JSONLineParser.Reader, depth: Int) throws(JSONLineParser.Failure)
        -> JSONTree
    {
        guard depth <= maximumDepth else { throw reader.failure("nested too deeply") }
        reader.skipWhitespace()
        switch reader.peek {
        case UInt8(ascii: "{"):
            var members: [Member] = []
            var keys: Set<String> = []
            try reader.readObject(depth: 1) { key, reader throws(JSONLineParser.Failure) in
                guard keys.insert(key).inserted else {
                    throw reader.failure("the key \"\(key)\" appears twice in one object")
                }
                members.append(Member(key: key, value: try read(&reader, depth: depth + 1)))
            }
            return .object(members)
        case UInt8(ascii: "["):
            reader.position += 1
            var elements: [JSONTree] = []
            reader.skipWhitespace()
            if reader.peek == UInt8(ascii: "]") {
                reader.position += 1
                return .array(elements)
            }
            while true {
                elements.append(try read(&reader, depth: depth + 1))
                reader.skipWhitespace()
                switch reader.peek {
                case UInt8(ascii: ","): reader.position += 1
                case UInt8(ascii: "]"):
                    reader.position += 1
                    return .array(elements)
                default: throw reader.failure("expected ',' or ']'")
                }
            }
        default:
            switch try reader.readValue(depth: 1) {
            case let .string(text): return .string(text)
            case let .number(text): return .number(text)
            case .null: return .null
            case .notUTF8: throw reader.failure("a string is not valid UTF-8")
            case .array, .other: return .boolean
            }
        }
    }
}
