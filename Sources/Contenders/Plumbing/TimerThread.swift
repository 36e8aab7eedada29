import ArenaContract
import Glibc
import HeapModule

/// One thread owning a `Heap` of deadlines, for asyncAfter and timer sources, sleeping on a timed condition wait
/// (neutral plumbing: every engine that keeps time on a thread of its own uses it).
///
/// Locks: the heap is under a pthread mutex, taken to insert an entry and by the timer thread around each wake-up;
/// fired actions run without it. Timers are a cold path next to the queues.
///
/// An entry may fire anywhere between its deadline and its deadline plus leeway. The thread sleeps until the
/// earliest of those latest moments and then fires every entry already due, so timers with leeway coalesce with
/// the ones around them; nothing ever fires before its deadline.
final class TimerThread: @unchecked Sendable {
    /// What an entry does when it fires: a one-shot action, or a repeating one that says when to fire next.
    enum Action {
        case once(() -> Void)
        case repeating(() -> (deadline: Deadline, leeway: Duration)?)
    }

    struct Entry: Comparable {
        let deadline: Deadline
        let latest: Deadline
        let sequence: UInt64
        let action: Action

        static func < (lhs: Entry, rhs: Entry) -> Bool {
            (lhs.deadline, lhs.sequence) < (rhs.deadline, rhs.sequence)
        }

        static func == (lhs: Entry, rhs: Entry) -> Bool { lhs.sequence == rhs.sequence }
    }

    private let lock = PthreadMutex()
    private let changed = PthreadCondition()
    // Guarded by `lock`:
    private var heap = Heap<Entry>()
    private var sequence: UInt64 = 0
    private var stopping = false
    private var thread: pthread_t?

    init(name: String) {
        thread = startEngineThread(name) { [self] in run() }
    }

    /// Runs `action` once, at or after `deadline`, at most `leeway` later (plus scheduling slack).
    func schedule(deadline: Deadline, leeway: Duration, _ action: @escaping () -> Void) {
        insert(deadline: deadline, leeway: leeway, action: .once(action))
    }

    /// Runs `action` at or after `deadline`, and again whenever it returns a next deadline.
    func scheduleRepeating(deadline: Deadline, leeway: Duration, _ action: @escaping () -> (deadline: Deadline, leeway: Duration)?) {
        insert(deadline: deadline, leeway: leeway, action: .repeating(action))
    }

    private func insert(deadline: Deadline, leeway: Duration, action: Action) {
        lock.withLock {
            sequence &+= 1
            heap.insert(Entry(deadline: deadline, latest: deadline + leeway, sequence: sequence, action: action))
            changed.signal()
        }
    }

    func shutdown() {
        let thread = lock.withLock {
            stopping = true
            changed.signal()
            return self.thread
        }
        if let thread { pthread_join(thread, nil) }
        // Entries still waiting will never fire, and their actions hold queues, which hold the engine that holds this
        // thread: a cycle that kept a whole engine alive after a shutdown with an asyncAfter pending.
        lock.withLock { heap = Heap() }
    }

    private func run() {
        lock.lock()
        while !stopping {
            guard let first = heap.min else {
                changed.wait(lock)
                continue
            }
            let now = Deadline.now()
            if first.deadline <= now {
                var due: [Entry] = []
                while let next = heap.min, next.deadline <= now { due.append(heap.removeMin()) }
                lock.unlock()
                for entry in due { fire(entry) }
                lock.lock()
                continue
            }
            // Sleep until the earliest moment some entry must have fired by.
            let wake = heap.unordered.lazy.map(\.latest).min() ?? first.latest
            changed.wait(lock, until: wake)
        }
        lock.unlock()
    }

    private func fire(_ entry: Entry) {
        switch entry.action {
        case .once(let action):
            action()
        case .repeating(let action):
            if let next = action() { insert(deadline: next.deadline, leeway: next.leeway, action: entry.action) }
        }
    }
}
