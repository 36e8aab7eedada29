import ArenaContract
import CLinux
import Contenders
import Foundation
import Glibc
import Harness
import Testing

@testable import Bench

extension ArenaTests {
    /// The thread census behind the `engine_threads` counter, on threads whose kind the test knows. Other tests run
    /// in this process at the same time, so it checks what the census makes of these threads, not totals.
    @Suite
    struct ThreadCensusTests {
        @Test("from its second look on (a last look: its first), every thread but the main and the harness's is the engine's")
        func kinds() throws {
            let release = Latch()
            defer { release.countDown() }
            let started = Latch(3)
            let ids = Locked([String: Int32]())
            @Sendable func note(_ kind: String) {
                ids.withLock { $0[kind] = clinux_thread_id() }
                started.countDown()
                release.wait(until: Deadline.now() + .seconds(30))
            }
            Threads.detach { note("harness") }
            Thread {
                clinux_set_thread_name("test.engine"); note("named")
            }.start()
            Thread { note("unnamed") }.start()  // keeps its creator's name
            try #require(started.wait(until: Deadline.now() + .seconds(10)))
            let known = ids.withLock { $0 }

            var census = ThreadCensus()
            _ = census.take()
            #expect(census.kind(of: getpid()) == .main)
            #expect(census.kind(of: known["named"]!) == .new)  // judged from the second look on
            let second = census.take()
            #expect(second.all >= 4 && second.engine >= 2)
            #expect(census.kind(of: getpid()) == .main)
            #expect(census.kind(of: known["harness"]!) == .harness)
            #expect(census.kind(of: known["named"]!) == .engine)
            #expect(census.kind(of: known["unnamed"]!) == .engine)

            // A point's last take judges at first sight: a short point whose workers started inside it counts them.
            var last = ThreadCensus()
            let final = last.take(final: true)
            #expect(final.engine >= 2)
            #expect(last.kind(of: getpid()) == .main)
            #expect(last.kind(of: known["harness"]!) == .harness)
            #expect(last.kind(of: known["named"]!) == .engine)
            #expect(last.kind(of: known["unnamed"]!) == .engine)
        }
    }
}
