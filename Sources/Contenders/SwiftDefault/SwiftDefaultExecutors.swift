import ArenaContract
import CLinux
import Glibc

/// Swift's default executors behind the layer protocol: no serial executors to make (default actors have the
/// runtime's), and the global concurrent executor as the task executor.
public struct SwiftDefaultExecutors: ExecutorLayer {
    public init() {}

    /// Never one: see `Capability.serialExecutors`.
    public func makeActorExecutor(label: String) -> EngineSerialExecutor<SystemEngine>? { nil }

    /// Swift's global concurrent executor behind a class of the layer's type: one small allocation per read.
    public var poolExecutor: DefaultPoolExecutor { DefaultPoolExecutor() }

    /// Yes: the pool is Swift's global concurrent executor itself.
    public var poolIsDefault: Bool { true }
}

/// Swift's global concurrent executor (`globalConcurrentExecutor`) as a task executor of the layer: every job is
/// handed to it as it is, so a task preferring this executor runs as a task without a preference does, plus one
/// forwarding call per job.
public final class DefaultPoolExecutor: LayerTaskExecutor {
    public init() { RootQueueWorker.claim() }

    public func enqueue(_ job: consuming ExecutorJob) {
        globalConcurrentExecutor.enqueue(job)
    }

    /// Whether the caller runs on one of libdispatch's root-queue workers, which run the global concurrent executor's
    /// jobs on Linux: libdispatch names each after its root queue (`com.apple.root.default-qos`, the kernel keeping
    /// the last 15 bytes), and nothing else here carries "qos" in its name. A worker serves one root queue for its
    /// whole life, under that name, so the answer belongs to the thread: its first call reads
    /// /proc/thread-self/comm (an open, a read and a close: microseconds) and keeps the answer in a thread-local
    /// slot, and every later call is one load, as the engine layers' `isCurrent` is (the executor workloads ask
    /// after every round trip and in every child task).
    public var isCurrent: Bool { RootQueueWorker.isCurrent }
}

/// Whether the calling thread is a libdispatch root-queue worker, read from its name once per thread.
enum RootQueueWorker {
    private static let slotIndex: Int32 = 5
    private static let claimed: Void = claimThreadSlot(slotIndex)
    /// What the slot holds once the thread was asked: tags, not pointers (the slot owns nothing).
    private static let workerTag: UInt = 2
    private static let otherTag: UInt = 1

    /// Claims the slot, once per process (before the first question).
    static func claim() { claimed }

    static var isCurrent: Bool {
        if let known = clinux_thread_slot(slotIndex) { return UInt(bitPattern: known) == workerTag }
        let answer = nameSaysWorker()
        clinux_set_thread_slot(slotIndex, UnsafeMutableRawPointer(bitPattern: answer ? workerTag : otherTag))
        return answer
    }

    /// Whether /proc/thread-self/comm names a root queue.
    private static func nameSaysWorker() -> Bool {
        let descriptor = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = read(descriptor, &bytes, bytes.count)
        guard count > 0 else { return false }
        return String(decoding: bytes[0..<count], as: UTF8.self).contains("qos")
    }
}
