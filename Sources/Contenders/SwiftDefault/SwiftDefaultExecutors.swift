import Glibc

/// Swift's default executors behind the layer protocol: no serial executors to make (default actors have the
/// runtime's), and the global concurrent executor as the task executor.
public struct SwiftDefaultExecutors: ExecutorLayer {
    public init() {}

    /// Never one: see `Capability.serialExecutors`.
    public func makeActorExecutor(label: String) -> EngineSerialExecutor<SystemEngine>? { nil }

    /// Swift's global concurrent executor behind a class of the layer's type: one small allocation per read.
    public var poolExecutor: DefaultPoolExecutor { DefaultPoolExecutor() }
}

/// Swift's global concurrent executor (`globalConcurrentExecutor`) as a task executor of the layer: every job is
/// handed to it as it is, so a task preferring this executor runs as a task without a preference does, plus one
/// forwarding call per job.
public final class DefaultPoolExecutor: LayerTaskExecutor {
    public init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        globalConcurrentExecutor.enqueue(job)
    }

    /// Whether the caller runs on one of libdispatch's root-queue workers, which run the global concurrent executor's
    /// jobs on Linux: libdispatch names each after its root queue (`com.apple.root.default-qos`, the kernel keeping
    /// the last 15 bytes), and nothing else here carries "qos" in its name. A read of /proc/thread-self/comm.
    public var isCurrent: Bool {
        let descriptor = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = read(descriptor, &bytes, bytes.count)
        guard count > 0 else { return false }
        return String(decoding: bytes[0..<count], as: UTF8.self).contains("qos")
    }
}
