import ArenaContract
import Glibc
import Synchronization

/// A once token: an atomic state (new, running, running with sleepers, done) that racing callers sleep on (futex).
/// Done costs one acquire load. The running caller's thread is recorded, so a call from the body is misuse.
public final class LockFreeOnce: EngineOnce, @unchecked Sendable {
    public let label: String
    private static let new: UInt32 = 0, running: UInt32 = 1, sleepers: UInt32 = 2, done: UInt32 = 3
    private let state = FutexWord(LockFreeOnce.new)
    private let runner = Atomic<UInt>(0)

    init(label: String) { self.label = label }

    public func perform(_ body: () -> Void) {
        let word = state.word
        if word.pointee.load(ordering: .acquiring) == Self.done { return }
        if word.pointee.compareExchange(expected: Self.new, desired: Self.running, ordering: .acquiring).exchanged {
            runner.store(UInt(pthread_self()), ordering: .relaxed)
            body()
            runner.store(0, ordering: .relaxed)
            if word.pointee.exchange(Self.done, ordering: .releasing) == Self.sleepers { state.wakeAll() }
            return
        }
        if runner.load(ordering: .relaxed) == UInt(pthread_self()) {
            misuse("once called recursively from its own body: once '\(label)'")
        }
        LockFreeThreadContext.blocking {
            while true {
                let current = word.pointee.load(ordering: .acquiring)
                if current == Self.done { return }
                if current == Self.running {
                    _ = word.pointee.compareExchange(expected: Self.running, desired: Self.sleepers, ordering: .relaxed)
                    continue
                }
                state.wait(whileEqualTo: Self.sleepers)
            }
        }
    }
}
