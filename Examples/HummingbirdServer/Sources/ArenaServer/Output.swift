#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The exit codes, from sysexits.h.
enum ServerExit {
    static let ok: Int32 = 0
    /// Another failure while running.
    static let failure: Int32 = 1
    /// EX_USAGE: a bad command line (a host that is not loopback, a port out of range, ...).
    static let usage: Int32 = 64
    /// EX_UNAVAILABLE: the port is in use.
    static let unavailable: Int32 = 69
    /// EX_SOFTWARE: `--nio-takeover` could not install NIO as the global executor.
    static let software: Int32 = 70
}

/// Writes `line` and a newline straight to a file descriptor: unbuffered, so a reader sees it at once even when stdout
/// is a pipe (the `listening` line), and free of the C `stdout` global, which Swift 6 rejects as shared mutable state.
func writeLine(_ line: String, to fd: Int32) {
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    bytes.withUnsafeBytes { buffer in
        while offset < buffer.count {
            let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}

/// One line on stderr, then exit.
func fail(_ message: String, code: Int32) -> Never {
    writeLine(message, to: STDERR_FILENO)
    exitProcess(code)
}

/// `exit`, for `main.swift`, which imports no C library of its own.
func exitProcess(_ code: Int32) -> Never {
    exit(code)
}
