import Glibc

/// One `Value` per thread, made on first use on each thread and released when the thread exits (a pthread key).
/// Reading it costs one `pthread_getspecific` (a few nanoseconds).
final class ThreadLocal<Value: AnyObject>: @unchecked Sendable {
    private let key: pthread_key_t
    private let make: () -> Value

    init(_ make: @escaping () -> Value) {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in Unmanaged<AnyObject>.fromOpaque(raw!).release() }
        self.key = key
        self.make = make
    }

    /// The calling thread's value. (Stored as `Value`, released as `AnyObject` by the key's destructor: a release
    /// needs no static type, and reading needs no dynamic cast.)
    @inline(__always)
    var current: Value {
        if let raw = pthread_getspecific(key) { return Unmanaged<Value>.fromOpaque(raw).takeUnretainedValue() }
        return makeCurrent()
    }

    private func makeCurrent() -> Value {
        let value = make()
        pthread_setspecific(key, Unmanaged.passRetained(value).toOpaque())
        return value
    }
}
