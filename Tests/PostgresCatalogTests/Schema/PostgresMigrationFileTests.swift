import Foundation
@testable import PostgresCatalog
import Testing

/// The migration files of `Sources/PostgresCatalog/Schema/migrations` as the program runs them,
/// and kept as they landed: a catalog made from a file already holds what the file made, so a
/// change to it would give new catalogs something old ones never get.
@Suite("PostgreSQL migration files")
struct PostgresMigrationFileTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Sources/PostgresCatalog/Schema/migrations")

    /// Each landed file's FNV-1a hash. A new migration adds its line; no line ever changes.
    static let landed: [String: UInt64] = [
        "001_books_accounts_and_policies.sql": 0x90d0_f168_e6a8_e62a,
        "002_search_pages_and_change_notices.sql": 0x84a3_d565_cc51_1dc8,
        "003_search_columns_derived_by_database.sql": 0xa706_e61c_6832_79f5,
        "004_revision_history.sql": 0x8850_cf15_f6c4_507d,
        "005_checks_refuse_every_unsafe_character.sql": 0x297b_ad5a_59e9_f2c1,
        "006_refold_search_columns.sql": 0x0847_0673_a916_33bb,
        "007_checks_bound_bytes_and_need_visible_title.sql": 0x0b39_653a_cfbf_f3f5,
        "008_catalog_group_roles.sql": 0x29b5_e4ff_e41b_cd9b,
        "009_account_group_follows_role.sql": 0x5708_ae2b_1d43_268d,
        "010_character_token_search.sql": 0xca7a_aa45_d64b_5a87,
        "011_book_details.sql": 0x0e00_e3eb_2a37_4a6c,
        "012_search_other_fields_and_isbn.sql": 0x96f5_dee5_0bc1_b150,
        "013_steady_word_indexes.sql": 0xc6c8_c6b5_82d0_3a01,
        "014_sparse_ranks_walk_further.sql": 0xba7c_3270_7af6_e30f,
        "015_ranks_read_by_candidate_cost.sql": 0x4949_7530_dee7_6630,
        "016_functions_pin_search_path.sql": 0x6413_6114_ca49_16ff,
        "017_batches.sql": 0xc014_3eb2_b2ae_b2bb,
        "018_import_provenance.sql": 0xbc9e_d3fd_3456_1986,
        "019_deleted_books.sql": 0x0cd5_2a93_421d_95c4,
        "020_derive_title_words_when_they_change.sql": 0x09d7_0198_0d2c_7ab2,
        "021_word_indexes_keep_short_pending_lists.sql": 0x17ae_e081_dc07_f8f4,
        "022_ascii_text_folded_without_the_loop.sql": 0xc22b_c095_c266_9dca,
        "023_word_functions_in_plpgsql.sql": 0x361f_53f4_477c_6d94,
        "024_word_indexes_keep_longer_pending_lists.sql": 0x7af1_094f_b74c_496d,
        "025_saves_by_book.sql": 0xb5e5_fca0_064e_96a3,
        "026_ascii_other_words_in_one_pass.sql": 0x8ecc_0928_f958_b42a,
    ]

    static func files() throws -> [(name: String, text: String)] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
            .map { ($0, try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)) }
    }

    static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
    }

    @Test("no landed migration file has changed, and each new one is listed")
    func landedFilesAreUnchanged() throws {
        let files = try Self.files()
        for (name, text) in files {
            let hash = Self.fnv1a(text)
            #expect(
                Self.landed[name] == hash,
                "\(name) is not as it landed: restate what it changes in a new migration (a new file's hash: 0x\(String(hash, radix: 16)))"
            )
        }
        #expect(Set(files.map(\.name)) == Set(Self.landed.keys), "a landed migration file is gone")
    }

    @Test("the program runs the files, in order, each opening with what it does")
    func programRunsTheFiles() throws {
        let files = try Self.files()
        #expect(PostgresSchema.latestVersion == files.count)
        for (index, file) in files.enumerated() {
            let migration = PostgresSchema.migration(to: index + 1)
            #expect(migration.file == file.name)
            #expect(migration.sql == file.text, "\(file.name) is not what the program runs")
            #expect(file.text.hasPrefix("-- "), "\(file.name) opens without saying what it does")
        }
    }
}
