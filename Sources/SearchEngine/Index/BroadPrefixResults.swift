import BookCatalog
import Locking

/// The base matches of the broadest queries, kept once computed: a word of one or two letters
/// matches a large share of all books ("a" matches 4.6 million of ten million), and ranking
/// it means reading every posting of every token it begins. Its answer never changes for one
/// base, so it is computed once (the single letters in the background as soon as an index is
/// ready, other broad prefixes at their first search) and every later search of it reads the
/// first `listed` matches of each rank.
///
/// Changes since the base do not invalidate an entry: the books they hid are skipped, and the
/// entry is used only while what is left still decides the answer (see `matches`).
package final class BroadPrefixResults: Sendable {
    /// A prefix is broad when its tokens have at least this share of the books' postings.
    package static func isBroad(postings: Int, books: Int) -> Bool {
        postings >= max(books / SearchTuning.broadShare, SearchTuning.broadLeastPostings)
    }

    private let entries = Locked<[String: SearchIndexBase.Matches]>([:])

    /// How many prefixes' answers are kept.
    package var keptCount: Int { entries.withLock { $0.count } }

    /// The base matches of a query that is the one word `words` compiled from `key` (one
    /// token, a prefix), computed if they are not kept yet; nil when the word is not broad.
    package func matches(
        for key: String, words: [SearchIndexBase.CompiledWord],
        in base: SearchIndexBase
    ) throws(SearchIndexDamage) -> SearchIndexBase.Matches? {
        guard words.count == 1, words[0].exact.isEmpty, Self.isBroad(postings: words[0].estimate, books: base.count)
        else { return nil }
        if let kept = entries.withLock({ $0[key] }) { return kept }
        var matches = SearchIndexBase.Matches(cap: SearchTuning.broadListedPerRank)
        try base.collect(words, hidden: nil, into: &matches)
        entries.withLock { entries in
            if entries.count < SearchTuning.broadPrefixesKept { entries[key] = matches }
        }
        return matches
    }

    /// Computes the single letters and digits that are broad, for a base that just became ready.
    package func warmUp(_ base: SearchIndexBase) {
        for letter in "abcdefghijklmnopqrstuvwxyz0123456789" {
            guard let words = base.compile(SearchTerms(String(letter))) else { continue }
            _ = try? matches(for: String(letter), words: words, in: base)
        }
    }

    /// Kept matches narrowed to the books not `hidden`, when they still give the page at
    /// `wanted` and a total beyond `countLimit`: the hidden books could have been anywhere in
    /// the ranks, so only rank 0 listing the whole page is certain. Nil otherwise.
    package static func narrowed(
        _ kept: SearchIndexBase.Matches, hidden: Bitmap?, hiddenCount: Int, wanted: Int,
        countLimit: Int
    ) -> SearchIndexBase.Matches? {
        guard wanted <= SearchTuning.broadListedPerRank else { return nil }
        guard let hidden else { return kept }
        var narrowed = kept
        narrowed.ordinals[0] = kept.ordinals[0].filter { !hidden.contains(Int($0)) }
        guard narrowed.ordinals[0].count >= wanted, kept.counts.reduce(0, +) - hiddenCount >= countLimit else {
            return nil
        }
        // Exact counts are unknown now, but the page lies in rank 0 and the total is capped.
        narrowed.counts[0] = max(narrowed.ordinals[0].count, kept.counts[0] - hiddenCount)
        return narrowed
    }
}
