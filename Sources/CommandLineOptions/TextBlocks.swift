/// Help prose as the man page and the markdown reference read it: paragraphs (blank lines
/// between them) of wrapped lines, and indented lines (examples, small tables) that keep
/// their line breaks and spacing.
enum TextBlock: Equatable {
    /// Lines to be filled as one paragraph.
    case prose([String])
    /// Lines shown as written, their common indent removed.
    case preformatted([String])
    /// A blank line in the source: the end of a paragraph.
    case paragraphBreak

    static func blocks(_ text: String) -> [TextBlock] {
        var blocks: [TextBlock] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingTrailingSpaces
            if trimmed.isEmpty {
                if let last = blocks.last, last != .paragraphBreak { blocks.append(.paragraphBreak) }
                continue
            }
            let indented = trimmed.first == " "
            switch blocks.last {
            case let .prose(lines) where !indented:
                blocks[blocks.count - 1] = .prose(lines + [trimmed])
            case let .preformatted(lines) where indented:
                blocks[blocks.count - 1] = .preformatted(lines + [trimmed])
            default:
                blocks.append(indented ? .preformatted([trimmed]) : .prose([trimmed]))
            }
        }
        if blocks.last == .paragraphBreak { blocks.removeLast() }
        return blocks.map { block in
            guard case let .preformatted(lines) = block else { return block }
            let indent = lines.map { $0.prefix { $0 == " " }.count }.min() ?? 0
            return .preformatted(lines.map { String($0.dropFirst(indent)) })
        }
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var text = Substring(self)
        while text.last == " " { text.removeLast() }
        return String(text)
    }

    /// The text on one line: every run of whitespace (line breaks too) one space.
    var onOneLine: String {
        split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).joined(separator: " ")
    }
}
