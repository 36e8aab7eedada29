import ArenaContract
import CLinux
import Glibc
import Harness

/// Counts instructions and heap allocations per operation: for every engine and path, two child processes under callgrind (N/2 and N
/// operations), `jobs` of them at a time.
///
/// Running children side by side changes no count: callgrind counts what a process executes, not how long it took,
/// each child is a process of its own, and each job runs its children on a CPU of its own (`isolate`). A counter is a
/// cheap value; `count` costs a copy of the program and two valgrind runs per cell.
public struct InstructionCounter: Sendable {
    /// The valgrind executable.
    public let valgrind: String
    /// The program that runs one path as a child (`PathRequest`): this `arena`, or an executor author's.
    public let executable: String
    /// How many children run at once.
    public let jobs: Int
    /// How long one child may run under callgrind before it is stopped.
    public let limit: Duration

    /// A counter; nothing runs until `count`.
    public init(valgrind: String, executable: String, jobs: Int, limit: Duration = .seconds(600)) {
        self.valgrind = valgrind
        self.executable = executable
        self.jobs = max(1, jobs)
        self.limit = limit
    }

    /// Counts every one of `paths` on every one of `engines`, each with `operations` as its larger count (its own
    /// default when `nil`), and reports each finished run to `progress` (its index from 1, the total, a description).
    /// Costs two runs under callgrind per cell, `jobs` at a time: about 53 s for the whole table (four engines, six paths) on 2 cores here.
    public func count(
        engines: [String], paths: [InstructionPath], operations: Int?, tool: String,
        progress: @escaping @Sendable (Int, Int, String) -> Void
    ) -> InstructionTable {
        struct Run: Sendable {
            let engine: String
            let path: InstructionPath
            let operations: Int
        }
        var runs: [Run] = []
        for engine in engines {
            for path in paths {
                let high = operations ?? path.defaultOperations
                runs.append(Run(engine: engine, path: path, operations: high / 2))
                runs.append(Run(engine: engine, path: path, operations: high))
            }
        }
        // Every cell says why when there is nothing to run valgrind on.
        func unmeasured(_ reason: String) -> InstructionTable {
            InstructionTable(
                tool: tool, realTime: false, engines: engines, paths: paths, warmUp: InstructionPath.warmUp,
                counts: Self.failed(runs.map { ($0.engine, $0.path, $0.operations) }, reason))
        }
        let scratch: ScratchDirectory
        do { scratch = try ScratchDirectory("instructions") } catch { return unmeasured(error.description) }
        defer { scratch.remove() }
        // Valgrind cannot read Swift's debug information: a program carrying it is run from a copy without it.
        let stripped = ELFSections.hasDebugInfo(executable) == false
        let program = stripped ? executable : scratch.file(executable.split(separator: "/").last.map(String.init) ?? "arena")
        if !stripped, let failure = Callgrind.copyWithoutDebugInfo(executable, to: program) {
            return unmeasured(failure.description)
        }
        let outcomes = Locked([Int: Result<CallgrindCounts, CallgrindFailure>]())
        let next = Locked(0)
        let realTime = Locked(true)
        let cpus = Self.allowedCPUs()
        let workers = (0..<min(jobs, runs.count)).map { worker in
            Threads.start { [self, runs] in
                // Inherited by every child this thread starts (see `isolate`).
                let isolated = Self.isolate(onCPU: cpus.isEmpty ? nil : cpus[worker % cpus.count])
                realTime.withLock { $0 = $0 && isolated }
                while true {
                    let index = next.withLock { value in
                        defer { value += 1 }
                        return value
                    }
                    guard index < runs.count else { return }
                    let run = runs[index]
                    let request = PathRequest(engine: run.engine, path: run.path, operations: run.operations, limit: limit)
                    let outcome = Callgrind.counts(
                        running: program, ChildRequests.arguments(for: request), valgrind: valgrind, limit: limit)
                    let done = outcomes.withLock { finished in
                        finished[index] = outcome
                        return finished.count
                    }
                    let result =
                        switch outcome {
                        case .success(let counts): "\(counts.instructions) instructions, \(counts.allocations) allocations"
                        case .failure(let failure): "failed: \(failure)"
                        }
                    progress(done, runs.count, "\(run.path.rawValue) on \(run.engine), \(run.operations) operations: \(result)")
                }
            }
        }
        for worker in workers { pthread_join(worker, nil) }
        let finished = outcomes.snapshot
        var counts: [InstructionCount] = []
        for pair in stride(from: 0, to: runs.count, by: 2) {
            let low = finished[pair]!, high = finished[pair + 1]!
            let failure: String? =
                switch (low, high) {
                case (.failure(let reason), _): "\(runs[pair].operations) operations: \(reason)"
                case (_, .failure(let reason)): "\(runs[pair + 1].operations) operations: \(reason)"
                default: nil
                }
            counts.append(
                InstructionCount(
                    engine: runs[pair].engine, path: runs[pair].path,
                    lowOperations: runs[pair].operations, highOperations: runs[pair + 1].operations,
                    lowInstructions: try? low.get().instructions, highInstructions: try? high.get().instructions,
                    lowAllocations: try? low.get().allocations, highAllocations: try? high.get().allocations,
                    failure: failure))
        }
        return InstructionTable(
            tool: tool, realTime: realTime.snapshot, engines: engines, paths: paths,
            warmUp: InstructionPath.warmUp, counts: counts)
    }

    /// Makes the calling thread, and so every child it starts (Linux children inherit both), run on `cpu` alone
    /// at `SCHED_FIFO` priority 1; returns whether the real-time class took (root or `CAP_SYS_NICE`).
    ///
    /// This is what makes the count of a hand-off repeat. Valgrind hands its big lock over at every blocking system
    /// call; when a thread wakes another (a `sync` waiter, a parked drain task) both then ask for the lock, and on
    /// a machine with more cores the kernel decides who asks first: `actor`'s `sync` measured from 7,500 to 10,500
    /// instructions from run to run. On one core at a real-time priority the woken thread cannot run before the
    /// waker blocks, so each hand-off goes the same way every time (the same `sync`: within 0.03% over four runs).
    static func isolate(onCPU cpu: Int?) -> Bool {
        if let cpu { _ = clinux_pin_thread(Int32(cpu)) }
        var parameters = sched_param(sched_priority: 1)
        return pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0
    }

    /// The CPUs this process may run on, in order.
    static func allowedCPUs() -> [Int] {
        var cpus = [Int32](repeating: 0, count: 1024)
        let count = clinux_allowed_cpus(&cpus, Int32(cpus.count))
        return count > 0 ? cpus[0..<Int(count)].map(Int.init) : []
    }

    /// A count for every run pair of `runs` that says `reason`.
    static func failed(_ runs: [(String, InstructionPath, Int)], _ reason: String) -> [InstructionCount] {
        stride(from: 0, to: runs.count, by: 2).map { pair in
            InstructionCount(
                engine: runs[pair].0, path: runs[pair].1, lowOperations: runs[pair].2,
                highOperations: runs[pair + 1].2, lowInstructions: nil, highInstructions: nil, failure: reason)
        }
    }
}

/// One path on one engine, as a child process under callgrind is asked to run it: the child runs the path with
/// `operations` counted operations and exits 0 when the answer was right, 1 with one line on standard error otherwise.
public struct PathRequest: ChildRequest, Equatable {
    public static let kind = "path"

    public let engine: String
    public let path: InstructionPath
    public let operations: Int
    /// How long the parent lets the child run under callgrind, in seconds.
    public let limitSeconds: Double

    public init(engine: String, path: InstructionPath, operations: Int, limit: Duration = .seconds(600)) {
        self.engine = engine
        self.path = path
        self.operations = operations
        limitSeconds = limit.seconds
    }

    public var limit: Duration { .milliseconds(Int64(limitSeconds * 1000)) }
}
