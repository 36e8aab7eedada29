import Glibc
import Synchronization

/// A signal source: a process-wide handler counts deliveries per signal and wakes the signal thread through a
/// pipe; the thread adds each count to the sources of that signal.
///
/// Standard signals that arrive while one is pending merge in the kernel, so a burst may count fewer than were
/// sent. The handler is installed when the first source of a signal activates and the previous disposition comes
/// back when the last one is cancelled. The signal thread is process-wide (signal dispositions are) and lives for
/// the process.
public final class MutexSignalSource: MutexSource, @unchecked Sendable {
    let signal: Int32
    private var registered = false  // guarded by `lock`

    init(label: String, signal: Int32, queue: MutexQueue) {
        self.signal = signal
        super.init(label: label, queue: queue)
    }

    override func didActivate() {
        lock.withLock { registered = true }
        MutexSignalHub.shared.add(self)
    }

    override func willCancel() {
        let wasRegistered = lock.withLock {
            defer { registered = false }
            return registered
        }
        if wasRegistered { MutexSignalHub.shared.remove(self) }
    }
}

/// Counts per signal, written by the handler (lock-free atomics and `write(2)`: async-signal-safe).
nonisolated(unsafe) private let signalCounts: UnsafeMutablePointer<Atomic<Int>> = {
    let counts = UnsafeMutablePointer<Atomic<Int>>.allocate(capacity: 65)
    for number in 0..<65 { (counts + number).initialize(to: Atomic(0)) }
    return counts
}()

/// The write end of the pipe that wakes the signal thread; -1 until the hub starts.
private let signalPipeWrite = Atomic<Int32>(-1)

private func countSignal(_ number: Int32) {
    guard number > 0 && number < 65 else { return }
    signalCounts[Int(number)].add(1, ordering: .relaxed)
    var byte: UInt8 = 1
    _ = write(signalPipeWrite.load(ordering: .relaxed), &byte, 1)
}

private struct WeakSignalSource {
    weak var source: MutexSignalSource?
}

/// The process-wide side of signal sources.
final class MutexSignalHub: @unchecked Sendable {
    static let shared = MutexSignalHub()

    private let lock = PthreadMutex()
    /// Weak: a source released without cancel stops counting, as it would in libdispatch.
    private var sources: [Int32: [WeakSignalSource]] = [:]
    private var previous: [Int32: sigaction] = [:]
    private let readEnd: Int32

    private init() {
        _ = signalCounts  // initialise before any handler can run
        var ends: [Int32] = [0, 0]
        precondition(pipe(&ends) == 0, "mutex engine: pipe failed (errno \(errno))")
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        readEnd = ends[0]
        signalPipeWrite.store(ends[1], ordering: .relaxed)
        pthread_detach(startMutexEngineThread("mutex.signals") { [self] in run() })
    }

    func add(_ source: MutexSignalSource) {
        lock.withLock {
            let number = source.signal
            if sources[number, default: []].isEmpty {
                signalCounts[Int(number)].store(0, ordering: .relaxed)
                var action = sigaction()
                action.__sigaction_handler.sa_handler = { countSignal($0) }
                sigemptyset(&action.sa_mask)
                action.sa_flags = SA_RESTART
                var old = sigaction()
                sigaction(number, &action, &old)
                previous[number] = old
            }
            sources[number, default: []].append(WeakSignalSource(source: source))
        }
    }

    func remove(_ source: MutexSignalSource) {
        lock.withLock {
            let number = source.signal
            sources[number]?.removeAll { $0.source == nil || $0.source === source }
            if sources[number]?.isEmpty == true, var old = previous.removeValue(forKey: number) {
                sigaction(number, &old, nil)
                sources[number] = nil
            }
        }
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            guard read(readEnd, &buffer, buffer.count) > 0 || errno == EINTR else { continue }
            let watched = lock.withLock { sources }
            for (number, listeners) in watched {
                let count = signalCounts[Int(number)].exchange(0, ordering: .relaxed)
                guard count > 0 else { continue }
                for listener in listeners { listener.source?.merge { $0 &+= UInt(count) } }
            }
        }
    }
}
