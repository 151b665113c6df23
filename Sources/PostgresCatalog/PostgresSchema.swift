/// The catalog's schema is SQL: one file per version in `Schema/migrations`
/// (`NNN_what_it_does.sql`, each saying at its top what it does and why), embedded in the
/// program by the EmbedSQL build plugin. `PostgresSetup.migrate()` applies the ones a database
/// lacks, in order, each in the transaction that records its number in
/// `bookshelf.schema_version`. What a catalog holds after all of them is `Schema/current.sql`.
///
/// A file is never edited once it has landed: a catalog made from it already holds what it
/// made. A change is a new file that restates whole what it changes (`CREATE OR REPLACE
/// FUNCTION …`). A test keeps the landed files as they are (`MigrationFilesTests`).
///
/// Who sees and edits what is enforced by the database, so it holds against hand-written SQL
/// too: every account is a login role in this catalog's reader or editor group
/// (`bookshelf.groups`); a policy shows a role only the books of its own scope, keyed on
/// `current_user`, which a role cannot change; only editors may update, and only the editable
/// columns; triggers move the revision up by exactly one and keep the history; CHECK
/// constraints hold `BookValidation`'s rules as they stood when each was written.
enum PostgresSchema {
    static let latestVersion = embeddedMigrations.count

    /// The version that gave every book its details (ISBN, year, publisher, series, tags,
    /// notes): a catalog older than it has no columns for them.
    static let detailsVersion = 11

    /// The version that derives the words of the series, the publisher and the tags
    /// (`other_words`), which setup's COPY then sends.
    static let otherWordsVersion = 12

    /// The version that turned the word indexes' pending lists off, so setup's import turns
    /// them on for its run and merges them after (`PostgresPendingLists`).
    static let steadyIndexesVersion = 13

    /// Migrations that `PostgresSetup.migrate()` follows by writing `bookshelf.folding` from
    /// `SearchFolding`: version 3 creates the table; version 6 is preceded by it (below).
    static let foldingLoadedAfter: Set<Int> = [3]

    /// Migrations that `PostgresSetup.migrate()` precedes by writing `bookshelf.folding` again
    /// from `SearchFolding`, because `SearchTerms`' folding changed.
    static let refoldingVersions: Set<Int> = [6]

    /// Migrations that `PostgresSetup.migrate()` follows, once committed, by an ANALYZE of the
    /// books, because they changed a statistics target: one set in a transaction is not seen by
    /// an ANALYZE in that same transaction.
    static let analyzedAfterCommit: Set<Int> = [steadyIndexesVersion]

    /// The SQL of the migration to `version` (1 through `latestVersion`).
    static func migration(to version: Int) -> EmbeddedMigration {
        precondition((1...latestVersion).contains(version), "no migration to version \(version)")
        return embeddedMigrations[version - 1]
    }
}

/// One file of `Schema/migrations`, as the EmbedSQL build plugin put it in the program.
struct EmbeddedMigration: Sendable {
    let version: Int
    /// Its name in `Schema/migrations`, for messages.
    let file: String
    let sql: String
}
