import CLinux
import Glibc

/// Stops the process because the program broke the GCD contract (sync onto its own queue, an unbalanced leave, an
/// over-resume, …). Every engine ends misuse through here, so the message has one shape:
/// `DispatchArena misuse: <what> on <object kind> '<label>'`.
///
/// It writes to standard error directly (no buffering, no allocation beyond the message) and aborts, so a parent
/// process sees SIGABRT and the text. A build instrumented for coverage writes its counts before aborting, so the
/// misuse rules' children count for the lines they drove (`scripts/coverage.sh`).
public func misuse(_ message: String) -> Never {
    let line = "DispatchArena misuse: \(message)\n"
    line.utf8CString.withUnsafeBufferPointer { buffer in
        _ = write(2, buffer.baseAddress, buffer.count - 1)
    }
    clinux_write_coverage()
    abort()
}
