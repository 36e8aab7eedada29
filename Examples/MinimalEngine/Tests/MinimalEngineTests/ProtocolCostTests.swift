import ArenaCLI
import ArenaContract
import Bench
import Contenders
import Foundation
import MinimalEngine
import Testing

/// The `protocol-cost` comparison on an engine from outside the package: the library's generic loop
/// (`ProtocolCostWorkload.generic`, in `ArenaCLI` beside the system engine it measures; compiled here, in another
/// package, for `MinimalQueue`), the same loop kept unspecialised (`witness`), and a loop of our own on
/// `MinimalQueue` called directly. Paired in rotating rounds, as `arena bench protocol-cost` pairs them for
/// `system`. A measurement, not a check (timing belongs to benchmarks): it runs when `ARENA_MEASURE_SPECIALISATION=1`
/// in an optimised build, and prints medians; docs/EXTENDING.md says what it shows.
@Suite struct ProtocolCostTests {
    static let enabled = ProcessInfo.processInfo.environment["ARENA_MEASURE_SPECIALISATION"] == "1"

    @Test(
        "generic path vs direct calls on MinimalEngine (prints; ARENA_MEASURE_SPECIALISATION=1, -c release)",
        .enabled(if: enabled))
    func measure() {
        let engine = MinimalEngine()
        let operations = 20_000, rounds = 15
        var generic: [Double] = [], witness: [Double] = [], direct: [Double] = []
        let counter = SharedCounter()
        let queues = (0..<3).map { engine.makeQueue(label: "protocol-cost.\($0)") }
        for round in 0..<rounds {
            var perRound: [Int: Double] = [:]
            for offset in 0..<3 {
                let path = (round + offset) % 3
                let reading =
                    switch path {
                    case 0: ProtocolCostWorkload.generic(queues[0], asynchronous: false, operations: operations, counter: counter)
                    case 1: ProtocolCostWorkload.witness(queues[1], asynchronous: false, operations: operations, counter: counter)
                    default: Self.direct(queues[2], operations: operations, counter: counter)
                    }
                perRound[path] = Double(reading.wallNanoseconds) / Double(operations)
            }
            generic.append(perRound[0]!)
            witness.append(perRound[1]!)
            direct.append(perRound[2]!)
        }
        let ratios = zip(generic, direct).map { ($0 / $1 - 1) * 100 }
        let witnessRatios = zip(witness, direct).map { ($0 / $1 - 1) * 100 }
        print(
            "protocol-cost on minimal, op:sync, \(rounds) paired rounds of \(operations) syncs: "
                + "generic \(Self.median(generic)) ns, witness \(Self.median(witness)) ns, direct \(Self.median(direct)) ns; "
                + "generic vs direct median \(Self.median(ratios))% (range \(ratios.min()!)…\(ratios.max()!)); "
                + "witness vs direct median \(Self.median(witnessRatios))%")
        #expect(counter.value == operations * rounds * 3)
    }

    /// The same loop on `MinimalQueue`, called directly: no generic parameter anywhere.
    @inline(never)
    static func direct(_ queue: MinimalQueue, operations: Int, counter: SharedCounter) -> Stopwatch.Reading {
        let watch = Stopwatch()
        for _ in 0..<operations { queue.sync { counter.value &+= 1 } }
        return watch.read()
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return (sorted[sorted.count / 2] * 10).rounded() / 10
    }
}
