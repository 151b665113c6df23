import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// calibre's single-instance lock ("calibre/utils/lock.py"): on Linux, an abstract Unix
/// socket named `calibre-singleinstance-<euid>-db`, bound by the calibre GUI, `calibre-server`
/// and `calibredb` while they use a library, by whichever comes first. It is per user, not
/// per library. Bookshelf binds the same name around each of its write transactions, so that
/// none of them can start writing in the middle of one, and refuses to write while one of
/// them holds it.
enum CalibreInstanceLock {
    /// The socket's name, without the leading NUL that makes it abstract.
    static var name: String { "calibre-singleinstance-\(geteuid())-db" }

    /// The lock, bound; released when this is deinitialised.
    final class Held {
        private let descriptor: Int32

        fileprivate init(descriptor: Int32) { self.descriptor = descriptor }

        deinit { close(descriptor) }
    }

    enum Outcome {
        case taken(Held)
        /// A calibre program holds it.
        case heldByCalibre
        /// This platform's lock is not the abstract socket: nobody can tell whether calibre runs.
        case unknown(String)
    }

    /// Binds the lock if nobody holds it. `name` is calibre's but in tests, which must not
    /// take the lock of the user's own calibre.
    static func take(name: String = name) -> Outcome {
        #if os(Linux)
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { return .unknown("cannot make a socket: \(String(cString: strerror(errno)))") }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            // An abstract name: a NUL, then the name's bytes, and exactly that length (no
            // terminating NUL), as Python binds "\0name".
            let nameBytes = Array(name.utf8)
            let length = withUnsafeMutableBytes(of: &address.sun_path) { path -> Int in
                path[0] = 0
                for (offset, byte) in nameBytes.enumerated() { path[offset + 1] = byte }
                return 1 + nameBytes.count
            }
            let size = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + length)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, size) }
            }
            if bound == 0 { return .taken(Held(descriptor: descriptor)) }
            let reason = errno
            close(descriptor)
            if reason == EADDRINUSE { return .heldByCalibre }
            return .unknown("cannot bind calibre's lock: \(String(cString: strerror(reason)))")
        #else
            return .unknown("calibre's lock on this system is a file Bookshelf does not take yet")
        #endif
    }

    /// Whether a calibre program holds the lock now, without taking it: a look at the kernel's
    /// list of Unix sockets (`/proc/net/unix`, where an abstract name shows as "@name"), so that
    /// a calibre starting at that moment never finds the lock held by a mere look. Falls back to
    /// taking and releasing it when that list cannot be read.
    static func isHeld(name: String = name) -> Bool? {
        #if os(Linux)
            if let listed = abstractNameIsListed(name) { return listed }
            switch take(name: name) {
            case .taken: return false
            case .heldByCalibre: return true
            case .unknown: return nil
            }
        #else
            return nil
        #endif
    }

    /// The most of `/proc/net/unix` read: a line per socket of the machine, so a busy one may
    /// list many; past this the look is given up and the lock is tried instead.
    static let maximumSocketListBytes = 16 << 20

    private static func abstractNameIsListed(_ name: String) -> Bool? {
        guard let handle = FileHandle(forReadingAtPath: "/proc/net/unix") else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maximumSocketListBytes), data.count < maximumSocketListBytes
        else { return nil }
        let wanted = Array(("@" + name).utf8)
        // The path is the last column of a line; a longer name that begins with ours is not ours.
        for line in data.split(separator: UInt8(ascii: "\n")) where line.count >= wanted.count {
            if line.suffix(wanted.count).elementsEqual(wanted) {
                let before = line.dropLast(wanted.count).last
                if before == UInt8(ascii: " ") { return true }
            }
        }
        return false
    }
}
