import BookCatalog
import Dispatch
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// `PostgresSetup.importBooks(streaming:)`, as `bookshelf sample` uses it for ten million
/// books: the server receives rows while the generator is still making them (nothing is
/// collected first), and a bad book part-way rolls everything back.
@Suite(.serialized, .tags(.postgres)) struct PostgresStreamingImportTests {
    /// Books that, when asked for book number `probeAt`, first wait until the server reports
    /// COPY rows received (pg_stat_progress_copy, read on another connection, for this test's
    /// database only: the view covers the whole server, where other tests import too). If the import
    /// collected the books before starting its COPY, there would be no COPY yet and the wait
    /// would end empty-handed.
    struct ProbingBooks: Sequence, Sendable {
        let count: Int
        let probeAt: Int
        let probe: @Sendable () -> Int

        func makeIterator() -> AnyIterator<NewBook> {
            var made = 0
            return AnyIterator {
                guard made < count else { return nil }
                if made == probeAt { _ = probe() }
                made += 1
                return NewBook(title: "Streamed book \(made)", author: "Probe Author")
            }
        }
    }

    /// A value handed between threads.
    final class Shared: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Int?
        var value: Int? {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }

    @Test(.enabled(if: PostgresTestCluster.shouldRun))
    func theServerReceivesRowsWhileTheGeneratorIsStillMakingThem() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let watcher = try await PostgresSetup.connect(catalog.adminConnector)
        let seenByServer = Shared()
        let probe: @Sendable () -> Int = {
            // Runs on the importing connection's worker thread; the watcher has its own.
            let deadline = ContinuousClock.now + .seconds(60)
            var received = 0
            while received == 0, ContinuousClock.now < deadline {
                let done = DispatchSemaphore(value: 0)
                let answer = Shared()
                Task.detached {
                    let rows = try? await watcher.execute(
                        "SELECT coalesce(max(tuples_processed), 0) FROM pg_stat_progress_copy WHERE datname = current_database()"
                    )
                    answer.value = Int(rows?.first?[0] ?? "0") ?? 0
                    done.signal()
                }
                done.wait()
                received = answer.value ?? 0
            }
            seenByServer.value = received
            return received
        }
        // 40,000 rows of about 80 bytes: the probe comes after three 1 MB chunks have gone out.
        let books = ProbingBooks(count: 40_000, probeAt: 39_000, probe: probe)
        let added = try await catalog.setup.importBooks(streaming: books, scope: "main")
        #expect(added == 40_000)
        let seen = try #require(seenByServer.value)
        #expect(seen > 0 && seen < 40_000, "rows the server had when book 39,001 was about to be made: \(seen)")
        let stored = try await catalog.setup.execute("SELECT count(*) FROM bookshelf.books WHERE scope = 'main'")
        #expect(stored.first?[0] == "40000")
    }

    @Test(.enabled(if: PostgresTestCluster.shouldRun))
    func aBadBookPartWayAddsNothing() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let good = (0..<5_000).map { NewBook(title: "Good book \($0)", author: "Someone") }
        let books = good + [NewBook(title: "", author: "Nobody")] + good
        await #expect(throws: BookFailure.self) {
            try await catalog.setup.importBooks(streaming: books, scope: "main")
        }
        let stored = try await catalog.setup.execute("SELECT count(*) FROM bookshelf.books WHERE scope = 'main'")
        #expect(stored.first?[0] == "0")
    }

    /// A streamed file that turns out to have bad lines only after its last book: the caller
    /// withdraws, and the books already sent are rolled back with the transaction.
    @Test(.enabled(if: PostgresTestCluster.shouldRun))
    func aWithdrawnImportAddsNothing() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let books = (0..<5_000).map { NewBook(title: "Withdrawn book \($0)", author: "Someone") }
        await #expect(throws: PostgresSetupFailure.importWithdrawn) {
            try await catalog.setup.importBooks(streaming: books, scope: "main", commitIf: { false })
        }
        let stored = try await catalog.setup.execute("SELECT count(*) FROM bookshelf.books WHERE scope = 'main'")
        #expect(stored.first?[0] == "0")
    }
}
