import ArenaContract
import CLinux

/// The object in the calling thread's slot `index` (a `ThreadLocal` made and owns it), unretained, or nil before it
/// was made on this thread: one thread-local load. The engines' thread contexts read their slot through this, in
/// their own module, rather than through a static of the generic `ThreadLocal` in another module, which was not
/// inlined: a call behind a metadata lookup, 19 instructions of a lock-free `sync`'s 182 (callgrind).
@inline(__always)
func threadSlotObject<Object: AnyObject>(_ index: Int32, as _: Object.Type = Object.self) -> Unmanaged<Object>? {
    guard let raw = clinux_thread_slot(index) else { return nil }
    return Unmanaged.fromOpaque(raw)
}
