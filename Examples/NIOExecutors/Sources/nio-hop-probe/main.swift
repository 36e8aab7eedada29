import ArenaContract
import Bench
import Contenders
import Foundation
import NIOContender
import NIOCore
import NIOPosix
import Synchronization

// nio-hop-probe ENGINE CALLER TRIPS [--ticks]: `actor-hop`'s trial, a fixed number of round trips in this one process,
// for profilers that watch a whole process (`strace -f -c`, `perf stat -e context-switches`); README, "Where the time
// goes". ENGINE: nio, system, mutex, lockfree, actor or swift; CALLER: pool or co-located. With --ticks (nio only),
// NIO's own account of the loops' work through a metrics delegate: ticks, tasks and time asleep per round trip (the
// delegate reads the clock twice a tick, so the time per round trip printed then is not the workload's).

/// Adds up what NIO's loops report at the end of each tick.
final class TickTotals: NIOEventLoopMetricsDelegate, Sendable {
    let ticks = Atomic<Int>(0)
    let tasks = Atomic<Int>(0)
    let asleepNanoseconds = Atomic<Int>(0)

    func processedTick(info: NIOEventLoopTickInfo) {
        ticks.wrappingAdd(1, ordering: .relaxed)
        tasks.wrappingAdd(info.numberOfTasks, ordering: .relaxed)
        asleepNanoseconds.wrappingAdd(Int(info.sleepTime.nanoseconds), ordering: .relaxed)
    }

    func snapshot() -> (ticks: Int, tasks: Int, asleep: Int) {
        (ticks.load(ordering: .relaxed), tasks.load(ordering: .relaxed), asleepNanoseconds.load(ordering: .relaxed))
    }
}

/// `trips` round trips of actor-hop's `caller` point on `engine`, after as many again to warm up.
func probe<E: Engine>(_ engine: E, caller: String, trips: Int, totals: TickTotals?) {
    let workload = ActorHopWorkload()
    guard let point = workload.points(BenchSettings()).first(where: { $0["caller"] == caller }) else {
        fail("no caller '\(caller)': \(ActorHopWorkload.callers.joined(separator: ", "))")
    }
    let context = TrialContext(deadline: .now() + .seconds(120), spinner: .calibrated())
    do {
        // NIO reports a tick when it ends, and a loop that keeps finding work keeps ticking: the pauses let the ticks
        // of the warm-up and of the trial end before each snapshot.
        _ = try workload.trial(point, operations: trips, on: engine, context: context)
        usleep(50_000)
        let before = totals?.snapshot()
        let trial = try workload.trial(point, operations: trips, on: engine, context: context)
        usleep(50_000)
        let perTrip = { (value: UInt64) in String(format: "%.0f", Double(value) / Double(trips)) }
        print(
            "\(engine.name) caller:\(caller): \(trips) round trips, \(perTrip(trial.elapsed.wallNanoseconds)) ns each, "
                + "\(perTrip(trial.elapsed.cpuNanoseconds)) ns of CPU each")
        if let totals, let before {
            let after = totals.snapshot()
            let per = { (value: Int) in String(format: "%.2f", Double(value) / Double(trips)) }
            print(
                "  NIO's loops, per round trip: \(per(after.ticks - before.ticks)) ticks, \(per(after.tasks - before.tasks)) tasks, "
                    + "\(per((after.asleep - before.asleep) / 1_000)) µs between ticks (in epoll_wait)")
        }
    } catch {
        fail("\(error)")
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("nio-hop-probe: \(message)\n".utf8))
    exit(64)
}

let arguments = CommandLine.arguments.dropFirst()
let positional = arguments.filter { !$0.hasPrefix("--") }
guard positional.count == 3, let trips = Int(positional[positional.startIndex + 2]), trips > 0 else {
    fail("usage: nio-hop-probe ENGINE CALLER TRIPS [--ticks]")
}
let engineName = positional[positional.startIndex], caller = positional[positional.startIndex + 1]
let ticks = arguments.contains("--ticks")
if ticks && engineName != "nio" { fail("--ticks counts NIO's loops: nio only") }
switch engineName {
case "nio":
    let totals = ticks ? TickTotals() : nil
    let engine = totals.map { NIOEngine(loops: EventLoops(threads: max(2, System.coreCount), metricsDelegate: $0)) } ?? NIOEngine()
    probe(engine, caller: caller, trips: trips, totals: totals)
case "system": probe(SystemEngine(), caller: caller, trips: trips, totals: nil)
case "mutex": probe(MutexEngine(), caller: caller, trips: trips, totals: nil)
case "lockfree": probe(LockFreeEngine(), caller: caller, trips: trips, totals: nil)
case "actor": probe(ActorEngine(), caller: caller, trips: trips, totals: nil)
case "swift": probe(SwiftDefaultEngine(), caller: caller, trips: trips, totals: nil)
default: fail("no engine '\(engineName)': nio, system, mutex, lockfree, actor or swift")
}
