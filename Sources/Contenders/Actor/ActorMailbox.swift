import ArenaContract
import DequeModule
import Synchronization

/// A FIFO mailbox with one consumer task: producers post from any thread; the consumer awaits the next element
/// (suspending, never blocking a thread, when the mailbox is empty). Order is the order of `post`, by construction.
///
/// Every element passes through the deque under the pthread mutex, and the consumer takes it out under the same
/// mutex: the continuation that wakes a parked consumer carries no data. That is what orders a producer's writes
/// (a sync waiter's fields, a block's captures) before the consumer's reads in a way ThreadSanitizer sees. The Swift
/// runtime does order a `resume(returning:)` hand-off, but tells TSan only when it enqueues the resumed task, not when
/// the resume lands before the task suspended (`wake`), so an element handed over inside the continuation was reported
/// as a race (issue 12: `ActorMail.isBarrier` read against `ActorSyncWaiter.init`). For the same reason this is not
/// `AsyncStream`, whose internal lock TSan cannot see here.
final class ActorMailbox<Element: Sendable>: @unchecked Sendable {
    private let lock = PthreadMutex()
    private var elements = Deque<Element>()
    /// The consumer, parked because it found the mailbox empty; resumed (with nothing) by the next post or finish.
    /// Unsafe rather than checked: exactly one party takes it, under the lock (`takeConsumer`), and the checked kind's
    /// layout is opaque outside the concurrency library, so every look at this field went through its metadata
    /// (callgrind: about a sixth of an uncontended `sync`'s instructions).
    private var parked: UnsafeContinuation<Void, Never>?
    private var finished = false
    /// A sync caller holds the consumer's turn (`borrowTurn`): posts meanwhile queue up without waking the consumer.
    private var borrowed = false
    /// Whether the consumer is parked with nothing queued and its turn not borrowed (nor the mailbox finished), so
    /// everything posted so far has been taken and dealt with: stored under the lock whenever one of those changes,
    /// and read without it by a concurrent queue's producer that hands its block to the runners itself
    /// (`ActorQueue.post`, models/actor-handoff.pml).
    private let open = Atomic<Bool>(false)

    /// Whether the consumer is parked with nothing queued, as last stored (see `open`). One atomic load.
    @inline(__always)
    var isOpen: Bool { open.load(ordering: .sequentiallyConsistent) }

    /// Stores what `open` says; under the lock, after every change of the queue, the parked consumer, the turn or
    /// `finished`.
    private func mirrorOpen() {
        open.store(elements.isEmpty && parked != nil && !borrowed && !finished, ordering: .sequentiallyConsistent)
    }

    /// Appends `element`, waking the consumer if it is parked. Ignored after `finish`. Costs one lock round trip,
    /// plus a task enqueue when the consumer was parked.
    func post(_ element: Element) {
        lock.lock()
        if finished { return lock.unlock() }
        elements.append(element)
        let waking = takeConsumer()
        mirrorOpen()
        lock.unlock()
        wake(waking)
    }

    /// The parked consumer, to be resumed once the lock is dropped; nil while a sync caller holds its turn (the
    /// caller wakes it on return). Under the lock.
    private func takeConsumer() -> UnsafeContinuation<Void, Never>? {
        guard !borrowed, let consumer = parked else { return nil }
        parked = nil
        return consumer
    }

    /// Takes the consumer's turn for a caller that will run its own work in the consumer's place: only while the
    /// mailbox is empty and the consumer parked, so nothing is ahead of the caller and nothing runs beside it. The
    /// caller must `returnTurn()`. One lock round trip.
    func borrowTurn() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard elements.isEmpty && parked != nil && !borrowed && !finished else { return false }
        borrowed = true
        mirrorOpen()
        return true
    }

    /// Gives the turn back, waking the consumer for what was posted meanwhile.
    func returnTurn() {
        lock.lock()
        borrowed = false
        let waking = elements.isEmpty && !finished ? nil : takeConsumer()
        mirrorOpen()
        lock.unlock()
        wake(waking)
    }

    /// No more elements will come; the consumer gets what is queued, then nil.
    func finish() {
        lock.lock()
        finished = true
        let waking = takeConsumer()
        mirrorOpen()
        lock.unlock()
        wake(waking)
    }

    /// Resumes the consumer taken under the lock, if any; outside the lock.
    ///
    /// Under ThreadSanitizer the resume's own accesses go unrecorded. `resume()` is emitted into this module, so its
    /// reads of the continuation's context (in the parked task's allocator) are instrumented; the consumer's task
    /// writes that memory as soon as it runs on. The runtime orders the two, and says so to TSan when it enqueues the
    /// task and runs it as a job; but when the resume lands between the park's closure and its suspension (a post
    /// right after the park published `parked`), `swift_continuation_await` in Swift 6.3's libswift_Concurrency finds
    /// the continuation resumed and jumps straight into the task's next partial function with no `_swift_tsan_acquire`
    /// (disassembled: both of its already-resumed branches), so TSan reported the write as a race with the read
    /// (swiftlang/swift#57803 reports the same pair). Nothing of ours can stand between them: the write is the first
    /// thing the task does. Our own data is still ordered by the mailbox's lock, which TSan sees.
    @inline(__always)
    private func wake(_ consumer: UnsafeContinuation<Void, Never>?) {
        guard let consumer else { return }
        ThreadSanitizerAnnotations.ignoringAccesses { consumer.resume() }
    }

    /// The next element, or nil once finished and empty. Only the one consumer calls it.
    func next() async -> Element? {
        while true {
            lock.lock()
            if let element = elements.popFirst() {
                lock.unlock()
                return element
            }
            if finished {
                lock.unlock()
                return nil
            }
            lock.unlock()
            // Park; a post between the unlock above and the park below finds `parked` still nil and only appends,
            // so the park re-checks under the lock before it sleeps.
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                lock.lock()
                if elements.isEmpty && !finished {
                    parked = continuation
                    mirrorOpen()
                    lock.unlock()
                } else {
                    lock.unlock()
                    continuation.resume()
                }
            }
        }
    }
}
