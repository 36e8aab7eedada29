import Glibc
import NIOCore
import NIOPosix
import Testing

/// The README's finding, reproduced with NIO alone (no arena type): `assumeIsolated` on an actor whose executor is an
/// event loop's, called off the loop, stops the process, but in NIO's `checkIsolated`, whose bare precondition names
/// neither the actor nor the misuse (and prints nothing at all in a release build). NIO 2.101 implements `checkIsolated` (a `preconditionInEventLoop`) and not
/// `isIsolatingCurrentContext`, so the runtime asks the former, which traps before the runtime's own message
/// ("Incorrect actor executor assumption; expected same executor as <actor>") could be printed.
@Suite struct FindingTests {
    @Test("assumeIsolated off the loop dies in NIO's precondition, without the actor's name")
    func assumeIsolatedOffTheLoop() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Self.assumeIsolatedOffTheLoop()
        }
        // A trap (SIGILL); NIO's message only where NIOCore's inlinable code was compiled without optimisation.
        #expect(result?.exitStatus == .signal(SIGILL), "\(String(describing: result?.exitStatus))")
        let said = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #if DEBUG
            #expect(said.contains("EventLoop+SerialExecutor.swift") && said.contains("Precondition failed"), "\(said)")
        #endif
        #expect(!said.contains("ActorOnLoop") && !said.contains("executor assumption"), "\(said)")
    }

    /// The misuse: a plain thread assumes the isolation of an actor on a loop.
    static func assumeIsolatedOffTheLoop() {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let actor = ActorOnLoop(group.next())
        actor.assumeIsolated { $0.touch() }
    }
}

/// An actor on an event loop, as NIO's documentation has it: its executor is the loop's.
actor ActorOnLoop {
    let loop: any EventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }
    var touches = 0

    init(_ loop: any EventLoop) { self.loop = loop }

    func touch() { touches += 1 }
}
