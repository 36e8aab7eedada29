import CLinux
import Glibc
import Synchronization

/// One `Value` per thread, made on first use on each thread and released when the thread exits.
///
/// The value lives in a C thread-local slot (`clinux_thread_slot`, one load, inlined), and a pthread key owns it so
/// that its destructor releases it (and empties the slot) when the thread exits. Each `ThreadLocal` claims a slot
/// index of its own, given as a literal by its owner, who reads the slot with that literal in its own module
/// (`clinux_thread_slot`; the engines' `threadSlotObject`) without touching the `ThreadLocal` object, which as a
/// static would cost a lazy-initialisation check on every read; `current` only on the first read of a thread.
package final class ThreadLocal<Value: AnyObject>: @unchecked Sendable {
    package let index: Int32
    private let key: pthread_key_t
    private let make: () -> Value

    /// Claims slot `index` (below `CLINUX_THREAD_SLOTS`); traps when another `ThreadLocal` has it.
    package init(index: Int32, _ make: @escaping () -> Value) {
        claimThreadSlot(index)
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            // The thread is exiting: empty every slot holding this value, so no later destructor reads it freed.
            for slot in 0..<CLINUX_THREAD_SLOTS where clinux_thread_slot(slot) == raw {
                clinux_set_thread_slot(slot, nil)
            }
            Unmanaged<AnyObject>.fromOpaque(raw!).release()
        }
        self.index = index
        self.key = key
        self.make = make
    }

    /// The calling thread's value, made on its first use on this thread. (Stored as `Value`, released as
    /// `AnyObject` by the key's destructor: a release needs no static type, and reading needs no dynamic cast.)
    @inline(__always)
    package var current: Value {
        guard let raw = clinux_thread_slot(index) else { return makeCurrent() }
        return Unmanaged<Value>.fromOpaque(raw).takeUnretainedValue()
    }

    @inline(never)
    private func makeCurrent() -> Value {
        let value = make()
        let raw = Unmanaged.passRetained(value).toOpaque()
        pthread_setspecific(key, raw)
        clinux_set_thread_slot(index, raw)
        return value
    }
}

/// The slot indices `ThreadLocal`s claimed, one bit each (a global: a generic class cannot have stored statics):
/// two owners of one index would read each other's values.
private let _threadLocalClaimedSlots = Atomic<UInt32>(0)

/// Claims slot `index` (below `CLINUX_THREAD_SLOTS`) for one owner: a `ThreadLocal`, or a user that sets and clears
/// an unowned pointer around a call (`RunningPool`). Traps when the slot was claimed before.
package func claimThreadSlot(_ index: Int32) {
    precondition(index >= 0 && index < CLINUX_THREAD_SLOTS, "thread-local slot \(index) is out of range")
    let before = _threadLocalClaimedSlots.bitwiseOr(1 << UInt32(index), ordering: .relaxed).oldValue
    precondition(before & (1 << UInt32(index)) == 0, "thread-local slot \(index) is claimed twice")
}
