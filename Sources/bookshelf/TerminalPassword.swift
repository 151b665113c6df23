import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a password the way `psql` does: from the controlling terminal (`/dev/tty`), with
/// echo off, so it never shows on screen, never lands in shell history and never goes
/// through standard input or output. Used before the screen opens; the screen has its own
/// masked prompt.
enum TerminalPassword {
    /// The line typed after `prompt`, or nil when there is no one to ask: standard input
    /// is not a terminal (a script, `< /dev/null`), so a run without a person never waits.
    static func ask(prompt: String) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        let descriptor = open("/dev/tty", O_RDWR | O_NOCTTY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return readLine(from: descriptor, prompt: prompt)
    }

    /// One line from a terminal descriptor with echo off; the settings are restored after.
    static func readLine(from descriptor: Int32, prompt: String) -> String? {
        var saved = termios()
        guard tcgetattr(descriptor, &saved) == 0 else { return nil }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ICANON)
        show(descriptor, prompt)
        guard tcsetattr(descriptor, TCSAFLUSH, &silent) == 0 else { return nil }
        let line = readBytes(descriptor)
        tcsetattr(descriptor, TCSAFLUSH, &saved)
        show(descriptor, "\n")
        return line
    }

    /// The first line of standard input (for `--password-stdin`): from a terminal without
    /// echo, from a pipe or file as it is. A trailing CR LF or LF is not part of it.
    static func fromStandardInput(prompt: String) -> String? {
        if isatty(STDIN_FILENO) == 1 { return readLine(from: STDIN_FILENO, prompt: prompt) }
        return readBytes(STDIN_FILENO)
    }

    /// Bytes up to a newline or end of input; nil if nothing at all could be read.
    private static func readBytes(_ descriptor: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        var sawAnything = false
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { break }
            sawAnything = true
            if byte == UInt8(ascii: "\n") { break }
            bytes.append(byte)
        }
        guard sawAnything else { return nil }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func show(_ descriptor: Int32, _ text: String) {
        var data = Array(text.utf8)
        _ = write(descriptor, &data, data.count)
    }
}
