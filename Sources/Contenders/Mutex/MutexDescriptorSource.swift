
/// A read or write source: the reactor reports readiness once per arming; the source sets the pending data to the
/// bytes available (read) or an estimate of the room (write), delivers, and re-arms after the handler ran. It
/// registers on activation and stays unarmed while suspended.
public final class MutexDescriptorSource: MutexSource, ReadinessListener, @unchecked Sendable {
    enum Direction { case read, write }

    private let descriptor: Int32
    private let direction: Direction
    private let reactor: EpollReactor
    private var registration: UInt64 = 0  // guarded by `lock`; 0 before activation and after cancel

    init(label: String, descriptor: Int32, direction: Direction, queue: MutexQueue, reactor: EpollReactor) {
        self.descriptor = descriptor
        self.direction = direction
        self.reactor = reactor
        super.init(label: label, queue: queue)
    }

    deinit {
        // Released without cancel: stop watching and close the duplicate (no handler can run any more).
        if registration != 0 { reactor.unregister(registration) }
    }

    override func didActivate() {
        // Recorded before it is armed: a report can come at once, and the re-arm after its handler needs the id.
        let id = reactor.register(self, descriptor: descriptor, writable: direction == .write)
        lock.withLock { registration = id }
        rearm()
    }

    /// Called by the reactor thread.
    func descriptorReady(_ id: UInt64) {
        let (data, ended) = reactor.readiness(id, writable: direction == .write)
        if data == 0 {
            // A report overtaken by a reader: ask again. End of file: one call with data 0, then quiet (nothing more
            // will come, and re-arming would report it again at once, forever).
            if !ended { return reactor.rearm(id) }
            if !reportedEnd {
                reportedEnd = true
                merge { $0 = endOfFile }
            }
            return
        }
        merge { $0 = data }
    }

    /// Whether end of file was reported; touched by the reactor thread only.
    private var reportedEnd = false

    /// The pending data that stands for end of file: non-zero, so it is delivered, and read back as 0.
    private var endOfFile: UInt { .max }

    /// The bytes available; 0 at end of file (libdispatch's read source fires once with 0 there, measured).
    public override var data: UInt {
        let data = super.data
        return data == endOfFile ? 0 : data
    }

    override func didDeliver() { rearm() }
    override func didResume() { rearm() }

    /// Asks the reactor for the next report, when no handler call is in flight or ready to start.
    private func rearm() {
        lock.lock()
        let id = registration
        let idle = isIdle && !cancelled
        lock.unlock()
        if id != 0 && idle { reactor.rearm(id) }
    }

    override func willCancel() {
        let id = lock.withLock {
            defer { registration = 0 }
            return registration
        }
        if id != 0 { reactor.unregister(id) }
    }
}
