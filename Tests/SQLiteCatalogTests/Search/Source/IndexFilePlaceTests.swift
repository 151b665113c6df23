@testable import SearchEngine
import Testing

/// Where a source keeps its index file (`IndexFilePlace`): beside Bookshelf's own catalog, or in
/// the user's cache folder by the XDG base directory rules for a file that must not be written beside.
@Suite struct IndexFilePlaceTests {
    @Test func besideTheCatalogIsTheCatalogsPathWithTheScopesHash() {
        let main = IndexFilePlace.beside(catalogPath: "/books/catalog.sqlite", scope: "main")
        let other = IndexFilePlace.beside(catalogPath: "/books/catalog.sqlite", scope: "other")
        #expect(main.hasPrefix("/books/catalog.sqlite-search-"))
        #expect(main != other)
        // The name earlier Bookshelf versions gave the file, so a stored index is found again.
        #expect(main == "/books/catalog.sqlite-search-" + String(fnv1a("main"), radix: 16))
    }

    @Test func theCacheFolderFollowsTheXDGRules() {
        #expect(
            IndexFilePlace.cacheFolder(environment: ["XDG_CACHE_HOME": "/cache", "HOME": "/home/reader"])
                == "/cache/bookshelf")
        #expect(IndexFilePlace.cacheFolder(environment: ["HOME": "/home/reader"]) == "/home/reader/.cache/bookshelf")
        // Empty or relative: ignored, as the rules say.
        #expect(
            IndexFilePlace.cacheFolder(environment: ["XDG_CACHE_HOME": "", "HOME": "/home/reader"])
                == "/home/reader/.cache/bookshelf")
        #expect(
            IndexFilePlace.cacheFolder(environment: ["XDG_CACHE_HOME": "cache", "HOME": "/home/reader"])
                == "/home/reader/.cache/bookshelf")
        #expect(IndexFilePlace.cacheFolder(environment: ["HOME": "home"]) == nil)
        #expect(IndexFilePlace.cacheFolder(environment: [:]) == nil)
    }

    @Test func inTheCacheEachLibraryAndScopeHasAFileOfItsOwn() throws {
        let environment = ["XDG_CACHE_HOME": "/cache"]
        let one = try #require(
            IndexFilePlace.inCache(of: "/libraries/one/metadata.db", scope: "main", environment: environment))
        let two = try #require(
            IndexFilePlace.inCache(of: "/libraries/two/metadata.db", scope: "main", environment: environment))
        let otherScope = IndexFilePlace.inCache(of: "/libraries/one/metadata.db", scope: "x", environment: environment)
        #expect(one.hasPrefix("/cache/bookshelf/metadata.db-"))
        #expect(one != two)
        #expect(one != otherScope)
        // The same library named another way is the same file.
        #expect(
            IndexFilePlace.inCache(of: "/libraries/one/../one/./metadata.db", scope: "main", environment: environment)
                == one)
    }

    private func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }
}
