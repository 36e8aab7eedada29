
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
            // Nothing to report: a report overtaken by a reader (ask again), or end of file (stay quiet: nothing
            // more will come, and re-arming would report it again at once, forever).
            if !ended { reactor.rearm(id) }
            return
        }
        merge { $0 = data }
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
