import ArenaContract
import Bench
import MinimalEngine
import ReadMostlyCache
import Synchronization
import Testing

/// The example workload checks its own answer: a cache that loses stores or hands out another key's value gets an
/// error, never a number; a sound one gets a number on the minimal engine.
@Suite struct ReadMostlyCacheTests {
    static let context = TrialContext(deadline: .now() + .seconds(30), spinner: .calibrated())

    @Test("a sound guard on the minimal engine gets a number")
    func sound() throws {
        let trial = try ReadMostlyCacheWorkload.run(MutexCache(), 4, 320, on: MinimalEngine(), Self.context)
        #expect(trial.operations == 4 * 320)
    }

    @Test("a cache that loses a store in ten is caught")
    func lostStores() {
        #expect(throws: WorkloadError.self) {
            _ = try ReadMostlyCacheWorkload.run(LossyCache(), 4, 320, on: MinimalEngine(), Self.context)
        }
    }

    @Test("a cache that answers with another key's value is caught")
    func strayValues() {
        #expect(throws: WorkloadError.self) {
            _ = try ReadMostlyCacheWorkload.run(StrayCache(), 4, 320, on: MinimalEngine(), Self.context)
        }
    }
}

/// Drops every tenth store.
private final class LossyCache: CacheGuard {
    let inner = MutexCache()
    let calls = Mutex(0)

    func lookUp(_ key: Int) async -> Int? { await inner.lookUp(key) }
    func store(_ value: Int, for key: Int) async {
        let call = calls.withLock {
            $0 += 1; return $0
        }
        if call % 10 != 0 { await inner.store(value, for: key) }
    }
    func storesTaken() async -> Int { await inner.storesTaken() }
}

/// Answers every lookup of a stored key with the next key's value.
private final class StrayCache: CacheGuard {
    let inner = MutexCache()

    func lookUp(_ key: Int) async -> Int? { await inner.lookUp(key).map { $0 + 1 } }
    func store(_ value: Int, for key: Int) async { await inner.store(value, for: key) }
    func storesTaken() async -> Int { await inner.storesTaken() }
}
