import Locking

/// Where a broad word occurs, as bitmaps over a base's ordinals, kept for the words of
/// multi-word queries. Typing "a his of" asks for the books of "a" and of "of" again at every
/// key, and each means reading millions of postings at ten million books (tens of
/// milliseconds); kept, a later query only ANDs their bitmaps. A base never changes, so an
/// entry never goes stale; the most recently used few are kept, each four bitmaps of one bit
/// per book (5 MB at ten million books).
package final class BroadWordPlaces: Sendable {
    /// Where one word occurs: in a book at all, in its title, as its first title token, in its
    /// title or its author (a book found only in the first bitmap has it in another field).
    package struct Places: Sendable {
        package let anywhere: [UInt64]
        package let inTitle: [UInt64]
        package let first: [UInt64]
        package let inTitleOrAuthor: [UInt64]
    }

    /// A compiled word of one token: the token numbers it covers.
    package struct Key: Hashable, Sendable {
        package let range: Range<Int>
        package let excluded: Set<UInt32>
    }

    /// Most recently used last.
    private let entries = Locked<[(key: Key, places: Places)]>([])

    /// How many words' places are kept.
    package var keptCount: Int { entries.withLock { $0.count } }

    /// The places of `word` (one token) when it is broad, kept or computed now; nil otherwise.
    package func places(of word: SearchIndexBase.CompiledWord, in base: SearchIndexBase) throws(SearchIndexDamage)
        -> Places?
    {
        guard word.exact.isEmpty, BroadPrefixResults.isBroad(postings: word.estimate, books: base.count) else {
            return nil
        }
        let key = Key(range: word.range, excluded: word.excluded)
        if let kept = kept(key) { return kept }
        let places = try base.places(of: word)
        entries.withLock { entries in
            entries.removeAll { $0.key == key }
            if entries.count >= SearchTuning.broadWordPlacesKept { entries.removeFirst() }
            entries.append((key, places))
        }
        return places
    }

    /// The places of the word `key` names if they are kept; never computes them.
    package func kept(_ key: Key) -> Places? {
        entries.withLock { entries -> Places? in
            guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = entries.remove(at: index)
            entries.append(entry)
            return entry.places
        }
    }
}
