import ArenaContract
import MinimalEngine
import Testing

/// The tutorial engine's misuse stops that no catalog rule can ask for, each in a child process of its own: the
/// reference gives them no outcome (libdispatch ignores a retarget of a global queue and does not look for cycles), so
/// only the tutorial's own stop is checked, here. (docs/COVERAGE.md lists the lines these reach.)
@Suite struct MinimalMisuseTests {
    @Test("setTarget that would make a cycle stops the process, naming the queue")
    func targetCycle() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let engine = MinimalEngine()
            let first = engine.makeQueue(label: "minimal.cycle.first")
            let second = engine.makeQueue(label: "minimal.cycle.second", kind: .serial, startsInactive: false, target: first)
            first.setTarget(second)
        }
        let text = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(text.contains("cycle") && text.contains("minimal.cycle.first"), "\(text)")
    }

    @Test("setTarget on the global queue stops the process, naming it")
    func retargetGlobal() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let engine = MinimalEngine()
            engine.globalQueue(qos: .default).setTarget(engine.makeQueue(label: "minimal.global.target"))
        }
        let text = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(text.contains("global queue"), "\(text)")
    }
}
