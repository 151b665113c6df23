/// What a source read from its catalog contradicts what the catalog said about itself: an id
/// outside the range `min(id)`/`max(id)` gave, fewer rows in a scan than `count(*)` counted, a
/// row an index names that the table lacks. Inside one read transaction none of that can
/// happen to an intact file, so the file is damaged where its own checks did not look (SQLite
/// reads its pages lazily). A search then fails whole rather than answer in part.
package struct CatalogDamage: Error, CustomStringConvertible {
    package let reason: String
    package init(_ reason: String) { self.reason = reason }
    package var description: String { "the catalog is damaged: \(reason)" }
}
