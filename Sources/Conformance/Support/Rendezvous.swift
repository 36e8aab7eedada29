import ArenaContract
import Harness

/// Two blocks on `queue` that can only finish together: each waits (bounded) for the other to arrive.
public func rendezvous<Q: EngineQueue>(on queue: Q, _ context: String) throws {
    let arrived = Latch(2)
    let met = Counter()
    let done = Latch(2)
    for _ in 0..<2 {
        queue.async {
            arrived.countDown()
            if arrived.wait(.seconds(3)) { met.add() }
            done.countDown()
        }
    }
    try expectOpens(done, within: .seconds(8), "\(context): two blocks finishing")
    try expect(met.value == 2, .serialized, "\(context): the two blocks never ran at the same time (\(met.value) of 2 met)")
}
