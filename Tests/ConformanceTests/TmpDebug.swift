import Conformance
import Contenders
import Testing

@Test func tmpDebug() async throws {
    for (fault, id) in [(Fault.barrierIgnored, "barrier.alone"), (.barrierIgnored, "barrier.after-earlier"), (.serialOverlaps, "target.serializes"), (.targetIgnored, "target.width"), (.sourceNoCoalescing, "source.handler-not-reentrant")] {
        let r = await ConformanceRunner(timeout: .seconds(6)).run(Catalog.rule(id: id)!, on: MutantEngine(fault))
        print("DEBUG", fault, id, r.status, r.detail)
    }
}
