#if canImport(Glibc)
    import Glibc
#endif

/// Writes to the process's own descriptors with write(2), telling failure apart instead of
/// trapping as FileHandle's `write(_:)` does on a closed or full descriptor.
public enum StandardStream {
    /// Writes all of `text` to `descriptor`; nil on success, else the errno that stopped it.
    public static func write(_ text: String, to descriptor: Int32) -> Int32? {
        write(Array(text.utf8), to: descriptor)
    }

    /// Writes all of `bytes` to `descriptor`; nil on success, else the errno that stopped it.
    public static func write(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        bytes.withUnsafeBytes { buffer -> Int32? in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
    }

    /// Opens /dev/null on each of descriptors 0, 1 and 2 that is closed; answers which were.
    public static func holdClosedDescriptors() -> Set<Int32> {
        var closed: Set<Int32> = []
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO]
        where fcntl(descriptor, F_GETFD) < 0 && errno == EBADF {
            closed.insert(descriptor)
            // open() takes the lowest free number: this one, as the lower ones are open now.
            let null = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if null >= 0, null != descriptor {
                dup2(null, descriptor)
                close(null)
            }
        }
        return closed
    }

    /// Standard error, best effort: when it is closed or full there is nowhere left to say so.
    public static func writeError(_ text: String) {
        _ = write(text, to: STDERR_FILENO)
    }

    /// The system's own words for `code`: "No space left on device".
    public static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
