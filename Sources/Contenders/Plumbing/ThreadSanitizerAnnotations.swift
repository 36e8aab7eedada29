import ArenaContract
import Glibc

/// ThreadSanitizer's happens-before annotations, for an ordering that is real but happens where TSan cannot see it
/// (inside an uninstrumented library). `release(key)` before the hand-off and `acquire(key)` after it make TSan
/// order everything before the one ahead of everything after the other, as a lock on `key` would.
///
/// The functions are found with `dlsym` once: a sanitized build exports them, a plain build has none, and then
/// `isActive` is false and the calls do nothing. Callers test `isActive` where even a branch per call matters.
enum ThreadSanitizerAnnotations {
    private typealias Annotation = @convention(c) (UnsafeMutableRawPointer?) -> Void

    private static let releaseFunction: Annotation? = lookUp("__tsan_release")
    private static let acquireFunction: Annotation? = lookUp("__tsan_acquire")

    /// Whether this process runs under ThreadSanitizer.
    static let isActive = releaseFunction != nil && acquireFunction != nil

    /// Everything this thread did so far happens before whatever follows a later `acquire(key)`.
    static func release(_ key: UnsafeMutableRawPointer) { releaseFunction?(key) }

    /// Everything before the last `release(key)` happens before what this thread does next.
    static func acquire(_ key: UnsafeMutableRawPointer) { acquireFunction?(key) }

    private static func lookUp(_ name: String) -> Annotation? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }  // RTLD_DEFAULT
        return unsafeBitCast(symbol, to: Annotation.self)
    }
}
