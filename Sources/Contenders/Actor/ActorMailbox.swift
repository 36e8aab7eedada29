import DequeModule

/// A FIFO mailbox with one consumer task: producers post from any thread; the consumer awaits the next element
/// (suspending, never blocking a thread, when the mailbox is empty). Order is the order of `post`, by construction.
///
/// Why not `AsyncStream`: it is the same idea, but on Linux its internal lock is invisible to ThreadSanitizer, which
/// then reports every hand-off as a race. Here the queue is a `Deque` under a pthread mutex (which TSan understands)
/// and the consumer parks in a continuation.
final class ActorMailbox<Element: Sendable>: @unchecked Sendable {
    private let lock = PthreadMutex()
    private var elements = Deque<Element>()
    private var consumer: CheckedContinuation<Element?, Never>?
    private var finished = false

    /// Appends `element`, waking the consumer if it waits. Ignored after `finish`.
    func post(_ element: Element) {
        lock.lock()
        if finished { return lock.unlock() }
        if let waiting = consumer {
            consumer = nil
            lock.unlock()
            return waiting.resume(returning: element)
        }
        elements.append(element)
        lock.unlock()
    }

    /// No more elements will come; the consumer gets what is queued, then nil.
    func finish() {
        lock.lock()
        finished = true
        let waiting = consumer
        consumer = nil
        lock.unlock()
        waiting?.resume(returning: nil)
    }

    /// The next element, or nil once finished and empty. Only the one consumer calls it.
    func next() async -> Element? {
        if let element = lock.withLock({ elements.popFirst() }) { return element }
        return await withCheckedContinuation { continuation in
            lock.lock()
            if let element = elements.popFirst() {
                lock.unlock()
                return continuation.resume(returning: element)
            }
            if finished {
                lock.unlock()
                return continuation.resume(returning: nil)
            }
            consumer = continuation
            lock.unlock()
        }
    }
}
