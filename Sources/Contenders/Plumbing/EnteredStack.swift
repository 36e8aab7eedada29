import ArenaContract

/// The queues a thread is running blocks of, outermost first: what engines consult for `currentSpecific` and for the
/// sync-onto-own-queue diagnostic.
///
/// Kept in raw memory the thread owns, not in a Swift array on a class, so pushing and popping on every block and
/// sync costs a few instructions and no dynamic exclusivity check. References are unowned: a queue is alive while a
/// thread runs one of its blocks.
struct EnteredStack<Queue: AnyObject>: ~Copyable {
    private var items: UnsafeMutablePointer<Unmanaged<Queue>>
    private var capacity: Int
    private(set) var count = 0

    init() {
        capacity = 16
        items = .allocate(capacity: capacity)
    }

    deinit { items.deallocate() }

    @inline(__always)
    mutating func push(_ queue: Queue) {
        if count == capacity { grow() }
        items[count] = Unmanaged.passUnretained(queue)
        count += 1
    }

    @inline(__always)
    mutating func pop() { count -= 1 }

    /// Pops down to `depth` entries.
    @inline(__always)
    mutating func pop(to depth: Int) { count = depth }

    /// The innermost queue.
    @inline(__always)
    var last: Queue? { count == 0 ? nil : items[count - 1].takeUnretainedValue() }

    /// The innermost queue, unretained: for a lookup that must not pay a retain and a release.
    @inline(__always)
    var lastUnmanaged: Unmanaged<Queue>? { count == 0 ? nil : items[count - 1] }

    /// Whether `queue` is on the stack.
    @inline(__always)
    func contains(_ queue: Queue) -> Bool {
        var index = count
        while index > 0 {
            index -= 1
            if items[index].toOpaque() == Unmanaged.passUnretained(queue).toOpaque() { return true }
        }
        return false
    }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<Unmanaged<Queue>>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: items, count: count)
        items.deallocate()
        items = larger
        capacity *= 2
    }
}

/// A thread's `EnteredStack`, reached through a pointer so that mutating it is not a class-property access.
final class EnteredStackBox<Queue: AnyObject> {
    let stack: UnsafeMutablePointer<EnteredStack<Queue>>

    init() {
        stack = .allocate(capacity: 1)
        stack.initialize(to: EnteredStack())
    }

    deinit {
        stack.deinitialize(count: 1)
        stack.deallocate()
    }
}
