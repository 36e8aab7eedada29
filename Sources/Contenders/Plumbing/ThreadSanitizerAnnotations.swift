import ArenaContract
import Glibc

/// ThreadSanitizer's happens-before annotations, for an ordering that is real but happens where TSan cannot see it
/// (inside an uninstrumented library). `release(key)` before the hand-off and `acquire(key)` after it make TSan
/// order everything before the one ahead of everything after the other, as a lock on `key` would.
///
/// `ignoringAccesses` is the one narrower tool: for a call whose memory accesses are the runtime's own, ordered by the
/// runtime where TSan cannot see it and where no annotation of ours can reach (see `ActorMailbox.wake`).
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

    // MARK: Ignoring a call's accesses

    /// The dynamic annotations' form (a file and a line, for TSan's own messages), which the sanitized executable
    /// exports where it does not export `__tsan_ignore_thread_begin`.
    private typealias IgnoreAnnotation = @convention(c) (UnsafePointer<CChar>?, CInt) -> Void

    /// TSan's four ignore annotations, all or none.
    private struct Ignore {
        let readsBegin, writesBegin, writesEnd, readsEnd: IgnoreAnnotation
    }

    private static let ignore: Ignore? = {
        guard let readsBegin = lookUp("AnnotateIgnoreReadsBegin", as: IgnoreAnnotation.self),
            let writesBegin = lookUp("AnnotateIgnoreWritesBegin", as: IgnoreAnnotation.self),
            let writesEnd = lookUp("AnnotateIgnoreWritesEnd", as: IgnoreAnnotation.self),
            let readsEnd = lookUp("AnnotateIgnoreReadsEnd", as: IgnoreAnnotation.self)
        else { return nil }
        return Ignore(readsBegin: readsBegin, writesBegin: writesBegin, writesEnd: writesEnd, readsEnd: readsEnd)
    }()

    /// Whether `ignoringAccesses` can ignore: TSan's ignore annotations were found (exactly when `isActive`, which the
    /// actor engine's tests check: a sanitized executable exports only some of TSan's interface).
    static var ignoresAccesses: Bool { ignore != nil }

    /// Runs `body` with this thread's memory accesses unrecorded (its synchronisation still counts). For a call into
    /// code the compiler emitted from the runtime's headers, never for data of ours: what `body` touches of ours goes
    /// unchecked. Four indirect calls under TSan; without it, a lazy static's once-check and a branch.
    @inline(__always)
    static func ignoringAccesses<R>(_ body: () throws -> R) rethrows -> R {
        guard let ignore else { return try body() }
        ignore.readsBegin(nil, 0)
        ignore.writesBegin(nil, 0)
        defer {
            ignore.writesEnd(nil, 0)
            ignore.readsEnd(nil, 0)
        }
        return try body()
    }

    // MARK: Finding the functions

    private static func lookUp<Function>(_ name: String, as _: Function.Type = Function.self) -> Function? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }  // RTLD_DEFAULT
        return unsafeBitCast(symbol, to: Function.self)
    }
}
