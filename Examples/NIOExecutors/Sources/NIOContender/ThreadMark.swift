import Glibc

/// A thread-local mark naming the executor whose job the thread runs (a pthread key): set around each job, read by
/// `isCurrent`. A few ns a store or a load.
final class ThreadMark: @unchecked Sendable {
    // Written once, in init, before the mark is shared.
    private var key = pthread_key_t()

    init() {
        guard pthread_key_create(&key, nil) == 0 else { fatalError("ThreadMark: pthread_key_create failed (keys exhausted)") }
    }

    /// Marks the thread as running a job of `owner`; returns the mark it replaced.
    func enter(_ owner: AnyObject) -> UnsafeMutableRawPointer? {
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(owner).toOpaque())
        return outer
    }

    /// Puts back the mark `enter` replaced.
    func leave(restoring outer: UnsafeMutableRawPointer?) { pthread_setspecific(key, outer) }

    /// Whether the thread runs a job of `owner`.
    func marks(_ owner: AnyObject) -> Bool { pthread_getspecific(key) == Unmanaged.passUnretained(owner).toOpaque() }
}
