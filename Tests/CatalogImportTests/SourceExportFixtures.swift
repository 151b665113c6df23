import BookCatalog
import Foundation

/// The committed sample exports of the places readers keep books (`Tests/Fixtures`), written
/// by hand after the files those services write (BookWyrm's importer test data shows their
/// columns): a LibraryThing TSV in ISO-8859-1 and its JSON, a StoryGraph CSV, a CSL-JSON file
/// and a BibTeX file.
enum SourceExportFixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
    }
}

extension SourceExportFixtures {
    /// A `read` giving `bytes` `size` at a time.
    static func chunks(of bytes: [UInt8], size: Int) -> () throws -> [UInt8] {
        var offset = 0
        return {
            defer { offset = min(bytes.count, offset + size) }
            return Array(bytes[offset..<min(bytes.count, offset + size)])
        }
    }
}
