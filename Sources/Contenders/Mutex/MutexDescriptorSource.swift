import ArenaContract

/// A read or write source: the reactor reports readiness once per arming; the source sets the pending data to the
/// bytes available (read) or an estimate of the room (write), or to end of file once, delivers, and re-arms after
/// the handler ran. It registers on activation and stays unarmed while suspended.
public final class MutexDescriptorSource: MutexReactorSource, ReadinessListener, @unchecked Sendable {
    enum Direction { case read, write }

    private let descriptor: Int32
    private let direction: Direction

    init(label: String, descriptor: Int32, direction: Direction, queue: MutexQueue, reactor: EpollReactor) {
        self.descriptor = descriptor
        self.direction = direction
        super.init(label: label, queue: queue, reactor: reactor)
    }

    override func didActivate() {
        if record(reactor.register(self, descriptor: descriptor, writable: direction == .write)) { rearm() }
    }

    /// Called by the reactor thread.
    func descriptorReady(_ id: UInt64) {
        switch reactor.report(id, writable: direction == .write) {
        case .ready(let data): merge { $0 = data }
        case .askAgain: reactor.rearm(id)
        case .quiet: break
        }
    }

    /// The bytes available or the room; 0 at end of file.
    public override var data: UInt { EpollReactor.handlerData(super.data) }

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
}
