import ArenaContract
import Conformance
import Contenders
import Glibc

/// A process or file source of the base engine with the engine's fault applied. The faults that change what is
/// asked of the kernel are applied where the base source is made (`MutantEngine.makeProcessSource`,
/// `makeFileSource`); this wrapper applies those that change what the handler sees.
final class MutantWatchSource<Base: Engine>: MutantSource<Base>, @unchecked Sendable {
    private let queue: Base.Queue
    /// The events the caller asked for (a `ProcessEvents` or `FileEvents` mask).
    private let requested: UInt

    init(
        base: any EngineSource, shared: MutantShared<Base>, queue: Base.Queue, descriptor: Int32, kind: Kind,
        requested: UInt
    ) {
        self.queue = queue
        self.requested = requested
        super.init(base: base, shared: shared, descriptor: descriptor, kind: kind)
    }

    override func setEventHandler(_ handler: (@Sendable () -> Void)?) {
        guard fault == .exitReportedTwice, kind == .process, let handler else { return super.setEventHandler(handler) }
        let queue = queue
        super.setEventHandler {
            handler()
            queue.asyncAfter(deadline: .now() + .milliseconds(100), handler)
        }
    }

    override var data: UInt {
        var data = super.data
        switch fault {
        case .writeAlwaysExtends where kind == .file && data & FileEvents.write.rawValue != 0:
            data |= FileEvents.extend.rawValue & requested
        case .linkReportedAsAttrib where kind == .file && data & FileEvents.link.rawValue != 0:
            data = data & ~FileEvents.link.rawValue | FileEvents.attrib.rawValue
        default:
            break
        }
        return data
    }

    /// Whether process `pid` has exited: a zombie (state Z in /proc/PID/stat), or gone.
    static func hasExited(_ pid: Int32) -> Bool {
        let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return true }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = read(descriptor, &bytes, bytes.count)
        // "PID (COMMAND) STATE …": the command may hold parentheses, so the state follows the last one.
        guard count > 0, let parenthesis = bytes[..<count].lastIndex(of: UInt8(ascii: ")")) else { return false }
        guard parenthesis + 2 < count else { return false }
        return bytes[parenthesis + 2] == UInt8(ascii: "Z")
    }

    /// Whether `descriptor` is open on a directory.
    static func isDirectory(_ descriptor: Int32) -> Bool {
        var status = stat()
        return fstat(descriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }
}
