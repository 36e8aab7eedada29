import ArenaContract
import Foundation
import Glibc

/// Swift executors on threads of their own: a thread per actor's serial executor, four threads for the task
/// executor. The layer alone, with no GCD: `LayerContender` borrows the rest from the system engine.
public struct ThreadExecutors: SpecificValueLayer {
    public let poolExecutor = ThreadPoolExecutor(label: "threads.pool", threads: 4)

    public init() {}

    public func makeActorExecutor(label: String) -> ThreadSerialExecutor? { ThreadSerialExecutor(label: label) }

    /// The value set on the serial executor whose thread the caller is on.
    public func currentSpecific<Value>(_ key: SpecificKey<Value>) -> Value? { WorkerThreads.current?.specific(key) }
}

/// A serial executor: one thread, running jobs and blocks in the order they came.
public final class ThreadSerialExecutor: LayerSerialExecutor, @unchecked Sendable {
    let threads: WorkerThreads
    public var label: String { threads.label }

    init(label: String) { threads = WorkerThreads(label: label, count: 1) }
    deinit { threads.stop() }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        threads.submit { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    public func submit(_ block: @escaping @Sendable () -> Void) { threads.submit(block) }
    public func setSpecific<Value>(_ key: SpecificKey<Value>, _ value: Value?) { threads.setSpecific(key, value) }
    public func isIsolatingCurrentContext() -> Bool? { WorkerThreads.current === threads }
}

/// A task executor: several threads taking jobs from one list.
public final class ThreadPoolExecutor: LayerTaskExecutor, @unchecked Sendable {
    let threads: WorkerThreads

    init(label: String, threads count: Int) { threads = WorkerThreads(label: label, count: count) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        threads.submit { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    public var isCurrent: Bool { WorkerThreads.current === threads }
}

/// Threads taking blocks from one list, first in, first out, until stopped; and the values set on them.
final class WorkerThreads: @unchecked Sendable {
    let label: String
    private let condition = NSCondition()
    // Guarded by `condition`: blocks come in at `incoming` and leave from `outgoing` (reversed), oldest first.
    private var incoming: [@Sendable () -> Void] = []
    private var outgoing: [@Sendable () -> Void] = []
    private var stopped = false
    private var specifics: [ObjectIdentifier: any Sendable] = [:]

    init(label: String, count: Int) {
        self.label = label
        for index in 0..<count {
            let thread = Thread { self.run() }  // holds `self` while it runs
            thread.name = "\(label).\(index)"
            thread.start()
        }
    }

    /// The threads the caller runs on, if it runs on some: a pthread key's value, set as each thread starts.
    static var current: WorkerThreads? {
        pthread_getspecific(currentKey).map { Unmanaged<WorkerThreads>.fromOpaque($0).takeUnretainedValue() }
    }

    func submit(_ block: @escaping @Sendable () -> Void) {
        condition.lock()
        incoming.append(block)
        condition.signal()
        condition.unlock()
    }

    /// Lets the threads end once the list is empty.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    func setSpecific<Value>(_ key: SpecificKey<Value>, _ value: Value?) {
        condition.lock()
        specifics[ObjectIdentifier(key)] = value
        condition.unlock()
    }

    func specific<Value>(_ key: SpecificKey<Value>) -> Value? {
        condition.lock()
        defer { condition.unlock() }
        return specifics[ObjectIdentifier(key)] as? Value
    }

    /// A thread's life: the next block, until stopped with none left.
    private func run() {
        pthread_setspecific(currentKey, Unmanaged.passUnretained(self).toOpaque())
        while true {
            condition.lock()
            while incoming.isEmpty && outgoing.isEmpty && !stopped { condition.wait() }
            if outgoing.isEmpty {
                outgoing = incoming.reversed()
                incoming = []
            }
            guard let block = outgoing.popLast() else {
                condition.unlock()
                return
            }
            condition.unlock()
            block()
        }
    }
}

/// The key of `WorkerThreads.current`.
private let currentKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()
