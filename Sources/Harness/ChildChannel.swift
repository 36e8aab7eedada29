import ArenaContract
import CLinux
import FoundationEssentials
import Glibc

/// The one protocol between the arena and a child process it started (see `ChildProcess`): what the conformance
/// child and the benchmark child share.
///
/// The child arms an alarm as a backstop, writes each result as one marked JSON line on standard error, and leaves
/// with `_exit`, never waiting for threads a wedged engine may still hold. Standard error, because that is where a
/// sanitizer or a crash writes: in one stream, what went wrong lands just before the result it spoiled. The parent
/// splits the child's standard error at the marked lines and, for a child that ended without a result, turns its
/// ending into words (`ChildEnding`).
public struct ChildChannel<Message: Codable & Sendable>: Sendable {
    /// The prefix of every result line.
    public let marker: String

    public init(marker: String) { self.marker = marker }

    // MARK: The child's side

    /// Arms `SIGALRM` to end the process once `limit` passed, rounded up to a second, in case everything else hangs
    /// and the parent is gone.
    public func armBackstop(_ limit: Duration) {
        alarm(UInt32(max(1, Int(limit.seconds.rounded(.up)))))
    }

    /// Writes `message` as one marked line on standard error, in one `write` call.
    public func send(_ message: Message) {
        let line = marker + String(decoding: try! JSONEncoder().encode(message), as: UTF8.self) + "\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    /// Ends the process at once with status 0: threads of a timed-out check may still be blocked. A build instrumented
    /// for coverage writes its counts first (`scripts/coverage.sh`), which `_exit` would skip.
    public func leave() -> Never {
        clinux_write_coverage()
        _exit(0)
    }

    // MARK: The parent's side

    /// The results `child` sent, each with the standard-error lines written since the one before, and the lines
    /// after the last. A line that carries the marker but no readable message is kept as `nil`, with its text.
    public func read(_ child: ChildOutcome) -> ChildTranscript<Message> {
        var transcript = ChildTranscript<Message>()
        var segment: [Substring] = []
        for line in child.standardError.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix(marker) else {
                segment.append(line)
                continue
            }
            let message = try? JSONDecoder().decode(Message.self, from: Data(line.dropFirst(marker.count).utf8))
            transcript.entries.append(.init(message: message, line: String(line), before: segment))
            segment = []
        }
        transcript.trailing = segment
        return transcript
    }
}

/// What a child wrote on standard error, split at its result lines.
public struct ChildTranscript<Message: Sendable>: Sendable {
    /// One result line and what came before it.
    public struct Entry: Sendable {
        /// The decoded message; `nil` when the marked line could not be read.
        public let message: Message?
        /// The whole line as written.
        public let line: String
        /// Standard-error lines since the previous result line.
        public let before: [Substring]
    }

    /// The result lines in the order written.
    public var entries: [Entry] = []
    /// Standard-error lines after the last result line.
    public var trailing: [Substring] = []
}

/// How a child that sent no (further) result ended, in words the parent puts in its report.
public enum ChildEnding: Sendable, Equatable {
    /// The parent killed it when its limit passed.
    case timedOut
    /// It died of a signal; `said` is its first line worth quoting.
    case crashed(signal: Int32, said: String)
    /// It exited with `code`; `said` is its first line worth quoting.
    case exited(code: Int32, said: String)

    /// The ending of `termination`, quoting the first line of `lines` worth quoting.
    public init(_ termination: ChildTermination, quoting lines: [Substring]) {
        let said = ChildOutcome.firstLine(of: lines)
        switch termination {
        case .timedOut: self = .timedOut
        case .signalled(let signal): self = .crashed(signal: signal, said: said)
        case .exited(let code): self = .exited(code: code, said: said)
        }
    }

    /// The ending of a crash or an exit as a sentence; `nil` for a time-out, which each side words by its own limit.
    public var description: String? {
        switch self {
        case .timedOut: nil
        case .crashed(let signal, let said): "the engine crashed the process (signal \(signal)): \(said)"
        case .exited(let code, let said): "the child exited \(code) without a result: \(said)"
        }
    }
}
