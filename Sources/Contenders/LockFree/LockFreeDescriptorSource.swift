import Synchronization

/// A read or write source: the shared epoll reactor reports readiness once per arming; the report replaces the
/// pending data with the bytes available (read) or the room (write), and the source re-arms after its handler ran.
/// It registers on activation and is not re-armed while suspended.
public final class LockFreeDescriptorSource: LockFreeSource, ReadinessListener, @unchecked Sendable {
    enum Direction { case read, write }

    private let descriptor: Int32
    private let direction: Direction
    private let reactor: EpollReactor
    private let pending = Atomic<UInt>(0)
    /// 0 before activation and after cancel.
    private let registration = Atomic<UInt64>(0)

    init(label: String, descriptor: Int32, direction: Direction, queue: LockFreeQueue, reactor: EpollReactor) {
        self.descriptor = descriptor
        self.direction = direction
        self.reactor = reactor
        super.init(label: label, queue: queue)
    }

    deinit {
        // Released without cancel: stop watching and close the duplicate.
        let id = registration.load(ordering: .relaxed)
        if id != 0 { reactor.unregister(id) }
    }

    override var hasPending: Bool { pending.load(ordering: .acquiring) != 0 }
    override func takePending() -> UInt { pending.exchange(0, ordering: .acquiringAndReleasing) }

    override func didActivate() {
        // Recorded before it is armed: a report can come at once, and the re-arm after its handler needs the id.
        registration.store(reactor.register(self, descriptor: descriptor, writable: direction == .write), ordering: .releasing)
        rearm()
    }

    /// Called by the reactor thread.
    func descriptorReady(_ id: UInt64) {
        let (data, ended) = reactor.readiness(id, writable: direction == .write)
        if data == 0 {
            // Overtaken by a reader: ask again. End of file: one call with data 0, then quiet.
            if !ended { return reactor.rearm(id) }
            if reportedEnd { return }
            reportedEnd = true
        }
        pending.store(data == 0 ? endOfFile : data, ordering: .releasing)
        merged()
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

    private func rearm() {
        let flags = flags.load(ordering: .acquiring)
        let id = registration.load(ordering: .acquiring)
        guard id != 0, flags & Self.cancelled == 0, flags >> 8 == 0 else { return }
        reactor.rearm(id)
    }

    override func willCancel() {
        let id = registration.exchange(0, ordering: .acquiringAndReleasing)
        if id != 0 { reactor.unregister(id) }
    }
}
