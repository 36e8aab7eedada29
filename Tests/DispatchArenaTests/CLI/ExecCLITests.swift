import ArenaContract
import ArenaTakeover
import Foundation
import Testing

extension ArenaTests {
    /// `arena exec` and the takeover behind it: bad input is one line and no program started; a built-in engine is
    /// installed in an unmodified program by the preloaded library; a hook someone else took is a refusal.
    @Suite
    struct ExecCLITests {
        @Test(
            "exec: an unknown engine, one that cannot serve, or no program is one line on stderr, exit 64, nothing run",
            arguments: [
                ["exec", "--engine", "nope", "--", "/bin/sh", "-c", "echo ran"],
                ["exec", "--engine", "actor", "--", "/bin/sh", "-c", "echo ran"],
                ["exec", "--engine", "foundation", "--", "/bin/sh", "-c", "echo ran"],
                ["exec", "--engine", "mutex"],
                ["exec", "--", "/bin/sh", "-c", "echo ran"],
            ])
        func badInput(_ arguments: [String]) throws {
            ArenaExecutable.expectUsageError(try ArenaExecutable.run(arguments), arguments)
        }

        @Test("exec: the engine that cannot serve is named with its reason, as the catalog's unsupported names it")
        func cannotServeSaysWhy() throws {
            let run = try ArenaExecutable.run(["exec", "--engine", "actor", "--", "/bin/true"])
            #expect(run.errors.contains("actor cannot serve as Swift's global executor: its queues are drained by tasks"), "\(run.errors)")
        }

        @Test("exec: a built-in engine comes as the preloaded library and its name; swift runs the program as it is")
        func environment() throws {
            let show = ["/bin/sh", "-c", "echo \"$ARENA_EXECUTOR|$ARENA_EXECUTOR_MAIN|$LD_PRELOAD\""]
            let mutex = try ArenaExecutable.run(["exec", "--engine", "mutex", "--"] + show)
            #expect(mutex.status == 0, "\(mutex.errors)")
            let fields = mutex.output.trimmingCharacters(in: .newlines).split(separator: "|", omittingEmptySubsequences: false)
            #expect(
                fields.count == 3 && fields[0] == "mutex" && fields[1] == "0" && fields[2].hasSuffix("/libArenaGlobalExecutor.so"),
                "\(mutex.output)")
            let main = try ArenaExecutable.run(["exec", "--engine", "lockfree", "--main", "--"] + show)
            #expect(main.output.hasPrefix("lockfree|1|"), "\(main.output)")
            let swift = try ArenaExecutable.run(["exec", "--engine", "swift", "--"] + show, environment: ["LD_PRELOAD": ""])
            #expect(swift.output == "||\n", "\(swift.output)")
            let missing = try ArenaExecutable.run(["exec", "--engine", "mutex", "--", "/no/such/program"])
            #expect(
                missing.status == 127 && missing.errors.contains("cannot run '/no/such/program'"), "\(missing.status) \(missing.errors)")
        }

        /// The preloaded library really takes the program over: Swift's default executor, checked by its own rule in an
        /// `arena` run under `arena exec --engine mutex`, finds its tasks off its own workers (the rule's children inherit
        /// the preload); without exec the same rule passes.
        @Test("exec: the preloaded library installs the engine before the program's main")
        func preloadTakesOver() throws {
            let conform = ["conform", "--engine", "swift", "--rule", "global-executor.on-contender", "--format", "json"]
            let plain = try ArenaExecutable.run(conform)
            #expect(plain.status == 0 && plain.output.contains("\"pass\""), "\(plain.status) \(plain.errors)")
            let taken = try ArenaExecutable.run(["exec", "--engine", "mutex", "--", ArenaExecutable.url.path] + conform)
            #expect(taken.status == 1 && taken.output.contains("wrong-place"), "\(taken.status) \(taken.output) \(taken.errors)")
        }

        @Test("install: a hook someone else set is a refusal naming it, one line, exit 70, nothing installed")
        func hookTaken() async throws {
            let result = await #expect(processExitsWith: .exitCode(70), observing: [\.standardErrorContent]) {
                typealias Hook = @convention(thin) (UnownedJob, @convention(thin) (UnownedJob) -> Void) -> Void
                let variable = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "swift_task_enqueueGlobal_hook")!
                    .assumingMemoryBound(to: Hook?.self)
                variable.pointee = { job, original in original(job) }  // someone else's takeover
                ArenaTakeover.installOrExit(engineNamed: "mutex")
            }
            let errors = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(
                errors.split(separator: "\n").contains { $0.hasPrefix("arena-takeover: swift_task_enqueueGlobal_hook is already set") },
                "\(errors)")
        }
    }
}
