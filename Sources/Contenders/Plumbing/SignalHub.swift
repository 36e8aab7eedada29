import ArenaContract
import Glibc
import Synchronization

/// Something a `SignalHub` reports deliveries of its signal to.
protocol SignalListener: AnyObject, Sendable {
    var signal: Int32 { get }
    /// Called on the hub's thread with the number of deliveries since the last call.
    func signalsArrived(_ count: UInt)
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

private struct WeakSignalListener {
    weak var listener: (any SignalListener)?
}

/// Process-wide signal counting for signal sources (neutral plumbing: dispositions are per process, so there is one
/// hub whatever the engine).
///
/// A `sigaction` handler counts deliveries per signal in lock-free atomics and wakes the hub's thread through a pipe
/// (both async-signal-safe); the thread hands each count to the listeners of that signal. Standard signals that
/// arrive while one is pending merge in the kernel, so a burst may count fewer than were sent. The handler is
/// installed when a signal's first listener registers and the previous disposition comes back when the last one
/// leaves. The thread lives for the process.
///
/// Locks: the listener table is under a pthread mutex, taken on register, remove and once per wake-up of the hub's
/// thread; never by the handler.
final class SignalHub: @unchecked Sendable {
    static let shared = SignalHub()

    private let lock = PthreadMutex()
    /// Weak: a source released without cancel stops counting, as it would in libdispatch.
    private var listeners: [Int32: [WeakSignalListener]] = [:]
    private var previous: [Int32: sigaction] = [:]
    private let readEnd: Int32

    private init() {
        _ = signalCounts  // initialise before any handler can run
        var ends: [Int32] = [0, 0]
        precondition(pipe(&ends) == 0, "signal hub: pipe failed (errno \(errno))")
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        readEnd = ends[0]
        signalPipeWrite.store(ends[1], ordering: .relaxed)
        startDetachedEngineThread("signal.hub") { [self] in run() }
    }

    func add(_ listener: any SignalListener) {
        lock.withLock {
            let number = listener.signal
            if listeners[number, default: []].isEmpty {
                signalCounts[Int(number)].store(0, ordering: .relaxed)
                var action = sigaction()
                action.__sigaction_handler.sa_handler = { countSignal($0) }
                sigemptyset(&action.sa_mask)
                action.sa_flags = SA_RESTART
                var old = sigaction()
                sigaction(number, &action, &old)
                previous[number] = old
            }
            listeners[number, default: []].append(WeakSignalListener(listener: listener))
        }
    }

    func remove(_ listener: any SignalListener) {
        lock.withLock {
            let number = listener.signal
            listeners[number]?.removeAll { $0.listener == nil || $0.listener === listener }
            if listeners[number]?.isEmpty == true, var old = previous.removeValue(forKey: number) {
                sigaction(number, &old, nil)
                listeners[number] = nil
            }
        }
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            guard read(readEnd, &buffer, buffer.count) > 0 || errno == EINTR else { continue }
            let watched = lock.withLock { listeners }
            for (number, entries) in watched {
                let count = signalCounts[Int(number)].exchange(0, ordering: .relaxed)
                guard count > 0 else { continue }
                for entry in entries { entry.listener?.signalsArrived(UInt(count)) }
            }
        }
    }
}
