/// A three-way merge of text by line, as diff3 does it: the lines of the base that both sides
/// kept anchor the merge; between two anchors, a stretch only one side changed takes that
/// side's lines, a stretch both changed the same way takes them, and a stretch both changed
/// differently is a conflict. In the domain because the editor's merge (BookshelfModel) and a
/// bulk edit's (`RecordMerge`) merge notes by the same rule.
public enum LineMerge {
    /// The merged text, or nil when the two sides changed the same lines differently.
    public static func merge(base: String, theirs: String, mine: String) -> String? {
        let old = lines(base), their = lines(theirs), my = lines(mine)
        guard let toTheirs = matches(old, their), let toMine = matches(old, my) else { return nil }
        var merged: [Substring] = []
        var (o, t, m) = (0, 0, 0)
        // Each base line both sides kept, then the end of all three, closes a stretch.
        let anchors = old.indices.compactMap { i in toTheirs[i].flatMap { ti in toMine[i].map { (i, ti, $0) } } }
        for (anchor, theirAnchor, myAnchor) in anchors + [(old.count, their.count, my.count)] {
            let stretch = (old[o..<anchor], their[t..<theirAnchor], my[m..<myAnchor])
            if stretch.1.elementsEqual(stretch.0) {
                merged += stretch.2
            } else if stretch.2.elementsEqual(stretch.0) || stretch.2.elementsEqual(stretch.1) {
                merged += stretch.1
            } else {
                return nil
            }
            if anchor < old.count { merged.append(old[anchor]) }
            (o, t, m) = (anchor + 1, theirAnchor + 1, myAnchor + 1)
        }
        return merged.joined(separator: "\n")
    }

    private static func lines(_ text: String) -> [Substring] {
        text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// Beyond this many cells the longest common subsequence would cost too much for a key
    /// press: the texts are then treated as changed throughout, which can only make a conflict.
    public static let largestComparison = 4_000_000

    /// For each line of `old`, the line of `new` it stays as in a longest common subsequence
    /// of the two, nil where it was removed or changed. Nil when the texts are too large.
    static func matches(_ old: [Substring], _ new: [Substring]) -> [Int?]? {
        // Lines equal at both ends match as they stand; only the middle needs the table.
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
            old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
        {
            suffix += 1
        }
        let rows = old.count - prefix - suffix, columns = new.count - prefix - suffix
        guard rows * columns <= largestComparison else { return nil }
        var result = [Int?](repeating: nil, count: old.count)
        for i in 0..<prefix { result[i] = i }
        for i in 0..<suffix { result[old.count - 1 - i] = new.count - 1 - i }
        // lengths[i][j]: the longest common subsequence of the middles from line i and j on.
        var lengths = [[Int]](repeating: [Int](repeating: 0, count: columns + 1), count: rows + 1)
        for i in stride(from: rows - 1, through: 0, by: -1) {
            for j in stride(from: columns - 1, through: 0, by: -1) {
                lengths[i][j] =
                    old[prefix + i] == new[prefix + j]
                    ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var (i, j) = (0, 0)
        while i < rows, j < columns {
            if old[prefix + i] == new[prefix + j] {
                result[prefix + i] = prefix + j
                (i, j) = (i + 1, j + 1)
            } else if lengths[i + 1][j] >= lengths[i][j + 1] {
                i += 1
            } else {
                j += 1
            }
        }
        return result
    }
}
