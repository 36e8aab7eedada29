import ArenaContract
import Bench
import NIOContender
import Testing

/// One quick workload on nio, both its callers: `actor-hop` checks its own answer in the trial (every call counted,
/// isolated to the loop, the task back on its executor after each), and throws where it is wrong.
@Suite struct WorkloadTests {
    @Test("actor-hop on nio gets a number from the pool and from beside the actor", arguments: ActorHopWorkload.callers)
    func actorHop(_ caller: String) throws {
        let workload = ActorHopWorkload()
        let point = try #require(workload.points(BenchSettings()).first { $0["caller"] == caller })
        let context = TrialContext(deadline: .now() + .seconds(30), spinner: .calibrated())
        let trial = try workload.trial(point, operations: 500, on: NIOEngine(), context: context)
        #expect(trial.operations == 500)
    }
}
