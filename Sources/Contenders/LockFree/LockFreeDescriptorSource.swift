import ArenaContract
import Synchronization

/// A read or write source: the shared epoll reactor reports readiness once per arming; the report replaces the
/// pending data with the bytes available (read) or the room (write), or end of file once, and the source re-arms
/// after its handler ran. It registers on activation and is not re-armed while suspended.
public final class LockFreeDescriptorSource: LockFreeReactorSource, ReadinessListener, @unchecked Sendable {
    enum Direction { case read, write }

    private let descriptor: Int32
    private let direction: Direction

    init(label: String, descriptor: Int32, direction: Direction, queue: LockFreeQueue, reactor: EpollReactor) {
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
        case .ready(let data):
            pending.store(data, ordering: .releasing)
            merged()
        case .askAgain: reactor.rearm(id)
        case .quiet: break
        }
    }

    /// The bytes available or the room; 0 at end of file.
    public override var data: UInt { EpollReactor.handlerData(super.data) }

    override func didDeliver() { rearm() }
    override func didResume() { rearm() }

    private func rearm() {
        let flags = flags.load(ordering: .acquiring)
        let id = registration.load(ordering: .acquiring)
        guard id != 0, flags & Self.cancelled == 0, flags >> 8 == 0 else { return }
        reactor.rearm(id)
    }
}
