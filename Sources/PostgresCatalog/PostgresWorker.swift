import Dispatch

/// A serial queue that owns one libpq connection's calls. libpq blocks the thread it runs
/// on; running it here keeps it off the main actor and off Swift's cooperative pool, and the
/// serial order is what libpq's one-caller-at-a-time rule needs. Callers simply await.
final class PostgresWorker: Sendable {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func perform<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
