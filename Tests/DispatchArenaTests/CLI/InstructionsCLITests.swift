import Bench
import Foundation
import Harness
import Reporting
import Testing

extension ArenaTests {
    @Suite
    struct InstructionsCLITests {
        /// A fresh directory path under /tmp that does not exist yet.
        static func freshPath() -> String { "/tmp/arena-instructions-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))" }

        @Test(
            "instructions usage errors: one line on stderr, exit 64, nothing written",
            arguments: [
                ["instructions", "--engine", "nope"],
                ["instructions", "--path", "no-such-path"],
                ["instructions", "--operations", "1"],
                ["instructions", "--operations", "many"],
                ["instructions", "--jobs", "0"],
                ["instructions", "--format", "csv"],
                ["instructions", "--check", "/nonexistent/thresholds"],
                ["instructions-child", "--engine", "nope", "--path", "sync", "--operations", "1"],
                ["instructions-child", "--engine", "mutex", "--path", "sync", "--operations", "-1"],
            ])
        func usageError(_ arguments: [String]) throws {
            let out = Self.freshPath()
            let withOut = arguments[0] == "instructions" ? arguments + ["--out", out] : arguments
            ArenaExecutable.expectUsageError(try ArenaExecutable.run(withOut), withOut)
            #expect(!FileManager.default.fileExists(atPath: out), "\(arguments): created \(out)")
        }

        @Test(
            "every path runs in a child on every engine the table counts and checks its own answer (exit 0), the job on the executor included",
            arguments: InstructionPath.allCases)
        func everyPathRuns(_ path: InstructionPath) throws {
            for engine in ["system", "mutex", "lockfree", "actor"] {
                let request = PathRequest(engine: engine, path: path, operations: 200, limit: .seconds(60))
                let run = try ArenaExecutable.run(ChildRequests.arguments(for: request))
                #expect(run.status == 0, "\(path.rawValue) on \(engine): exit \(run.status): \(run.errors)")
            }
        }

        @Test("the count is the difference of two runs per extra operation, and callgrind's total is read from its profile")
        func arithmetic() {
            let count = InstructionCount(
                engine: "mutex", path: .sync, lowOperations: 1000, highOperations: 2000,
                lowInstructions: 5_000_000, highInstructions: 5_250_000)
            #expect(count.perOperation == 250)
            let failed = InstructionCount(
                engine: "mutex", path: .sync, lowOperations: 1000, highOperations: 2000,
                lowInstructions: 5_000_000, highInstructions: nil, failure: "timed out")
            #expect(failed.perOperation == nil)
            #expect(Callgrind.total(inProfile: "events: Ir\nfn=main\n1 5\nsummary: 123456\ntotals: 123456\n") == 123456)
            #expect(Callgrind.total(inProfile: "events: Ir\n") == nil)
            let table = InstructionTable(
                tool: "valgrind-3.19.0", realTime: true, engines: ["system", "mutex"], paths: [.sync], warmUp: 100,
                counts: [
                    count,
                    InstructionCount(
                        engine: "system", path: .sync, lowOperations: 1000,
                        highOperations: 2000, lowInstructions: 1, highInstructions: 2),
                ])
            #expect(table.markdownSection().contains("| `sync` | \(InstructionPath.sync.operation) | 2000 | 0.0 | 250.0 |"))
            #expect(InstructionTable.read("/nonexistent") == nil)
        }

        @Test("allocations are the calls into the C library's allocators from outside them, read from callgrind's call lines")
        func allocations() {
            // main calls malloc 3 times then 2, through a compressed name; realloc calls malloc inside (not counted
            // twice); operator new calls malloc once; a recursion suffix ('2) names the same function; free is no
            // allocation, nor a call to a function merely called malloc_consolidate.
            let profile = """
                events: Ir
                fn=(1) main
                cfn=(2) malloc
                calls=3 10
                5 300
                cfn=(2)
                calls=2 10
                5 200
                cfn=(3) realloc
                calls=1 20
                5 100
                cfn=(4) free
                calls=4 30
                5 40
                cfn=(5) _Znwm
                calls=1 40
                5 50
                fn=(3)
                cfn=(2)
                calls=1 10
                5 80
                fn=(5)
                cfn=(6) malloc'2
                calls=1 10
                5 80
                cfn=(7) malloc_consolidate
                calls=6 10
                5 80
                summary: 1000
                """
            #expect(Callgrind.allocations(inProfile: profile) == 7)
            #expect(Callgrind.allocations(inProfile: "events: Ir\nfn=(1) main\n1 5\nsummary: 5\n") == 0)
            let count = InstructionCount(
                engine: "lockfree", path: .asyncDrain, lowOperations: 1000, highOperations: 2000,
                lowInstructions: 100_000, highInstructions: 200_000, lowAllocations: 40, highAllocations: 1040)
            #expect(count.allocationsPerOperation == 1)
            let old = InstructionCount(
                engine: "lockfree", path: .asyncDrain, lowOperations: 1000, highOperations: 2000,
                lowInstructions: 100_000, highInstructions: 200_000)
            #expect(old.allocationsPerOperation == nil)
        }

        @Test("thresholds: a count over its line's figure is named with path, engine, count and threshold; bad lines throw")
        func thresholds() throws {
            let thresholds = try InstructionThresholds(
                parsing: """
                    # path       engine    instructions allocations
                    sync         lockfree  120          0
                    async-drain  lockfree  300          0   # one block and its run

                    apply        mutex     40           0.01
                    """)
            #expect(thresholds.limits.count == 3)
            func count(_ path: InstructionPath, _ engine: String, _ instructions: UInt64, _ allocations: UInt64) -> InstructionCount {
                InstructionCount(
                    engine: engine, path: path, lowOperations: 1000, highOperations: 2000, lowInstructions: 0,
                    highInstructions: instructions * 1000, lowAllocations: 0, highAllocations: allocations * 1000)
            }
            let holding = InstructionTable(
                tool: "valgrind", realTime: true, engines: ["lockfree"], paths: [.sync, .asyncDrain], warmUp: 100,
                counts: [count(.sync, "lockfree", 120, 0), count(.asyncDrain, "lockfree", 250, 0)])
            #expect(thresholds.violations(in: holding).isEmpty)
            let regressed = InstructionTable(
                tool: "valgrind", realTime: true, engines: ["lockfree"], paths: [.sync, .asyncDrain], warmUp: 100,
                counts: [count(.sync, "lockfree", 121, 0), count(.asyncDrain, "lockfree", 250, 1)])
            #expect(
                thresholds.violations(in: regressed) == [
                    "sync on lockfree: 121.0 instructions per operation, over its threshold of 120",
                    "async-drain on lockfree: 1.00 heap allocations per operation, over its threshold of 0",
                ])
            for (text, line) in [
                ("sync lockfree 120", 1), ("# c\nsnyc lockfree 120 0", 2), ("sync lockfree many 0", 1),
                ("sync lockfree 120 -1", 1), ("sync lockfree 1 0\nsync lockfree 2 0", 2),
            ] {
                #expect(throws: ThresholdsError.self, "\(text)") { try InstructionThresholds(parsing: text) }
                do { _ = try InstructionThresholds(parsing: text) } catch { #expect(error.line == line, "\(text): \(error)") }
            }
        }

        @Test("a program's debug information is read from its ELF sections: present in this test, gone from a stripped copy")
        func debugInformation() throws {
            let me = try #require(try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            let sections = try #require(ELFSections.names(me), "\(me) read as no ELF file")
            #expect(sections.contains(".text") && sections.contains(".symtab"), "\(sections)")
            #expect(ELFSections.hasDebugInfo(me) == true, "a debug build of the tests has .debug_info: \(sections)")
            let text = Self.freshPath()
            defer { try? FileManager.default.removeItem(atPath: text) }
            try "#!/bin/sh\n".write(toFile: text, atomically: true, encoding: .utf8)
            #expect(ELFSections.names(text) == nil, "a shell script read as ELF")
            guard try RequiredPackage.binutils.require() else { return }
            let stripped = Self.freshPath()
            defer { try? FileManager.default.removeItem(atPath: stripped) }
            let strip = Process()
            strip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            strip.arguments = ["strip", "-o", stripped, me]
            try strip.run()
            strip.waitUntilExit()
            try #require(strip.terminationStatus == 0, "strip -o \(stripped) \(me) failed")
            #expect(ELFSections.hasDebugInfo(stripped) == false, "\(ELFSections.names(stripped) ?? [])")
            #expect(ELFSections.names(stripped)?.contains(".text") == true)
        }

        @Test(
            "instructions counts a path on one engine into the folder's run record and instructions.md; without valgrind it exits 69 saying how to install it"
        )
        func countsOnePath() throws {
            let out = Self.freshPath()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let arguments = [
                "instructions", "--engine", "mutex", "--path", "group-enter-leave", "--operations", "2000",
                "--quiet", "--format", "json", "--out", out,
            ]
            let missing = try ArenaExecutable.run(arguments, environment: ["PATH": "/nonexistent"])
            #expect(missing.status == 69, "\(missing.errors)")
            #expect(missing.errors.contains("apt-get install valgrind"), "\(missing.errors)")
            #expect(!FileManager.default.fileExists(atPath: out))
            guard try RequiredPackage.valgrind.require() else { return }
            let run = try ArenaExecutable.run(arguments)
            #expect(run.status == 0, "exit \(run.status): \(run.errors)")
            let table = try #require(try RunRecord.read(from: out).instructions)
            let count = try #require(table.count(.groupEnterLeave, on: "mutex"))
            #expect(count.lowOperations == 1000 && count.highOperations == 2000)
            // A mutex engine's enter and leave: about 380 instructions in release, 2,700 in the debug build the tests
            // run; never none, never a whole process's start-up.
            let perOperation = try #require(count.perOperation, "\(count)")
            #expect(perOperation > 10 && perOperation < 20_000, "\(perOperation)")
            #expect(try JSONDecoder().decode(InstructionTable.self, from: Data(run.output.utf8)) == table)
            let markdown = try String(contentsOfFile: out + "/instructions.md", encoding: .utf8)
            #expect(markdown.hasPrefix("# Instructions per operation") && markdown.contains("| `group-enter-leave` |"))
            // A mutex engine's enter and leave allocate nothing once warmed up.
            #expect(count.allocationsPerOperation == 0, "\(count)")
            // Held to thresholds: one it keeps, then one below its count, which fails naming the cell.
            let thresholds = out + "/thresholds"
            let generous = "group-enter-leave mutex \(Int(perOperation * 2)) 0\n"
            try generous.write(toFile: thresholds, atomically: true, encoding: .utf8)
            let held = try ArenaExecutable.run(Array(arguments.dropLast(2)) + ["--check", thresholds])
            #expect(held.status == 0, "exit \(held.status): \(held.errors)")
            try "group-enter-leave mutex 10 0\n".write(toFile: thresholds, atomically: true, encoding: .utf8)
            let over = try ArenaExecutable.run(Array(arguments.dropLast(2)) + ["--check", thresholds])
            #expect(over.status == 1, "exit \(over.status): \(over.errors)")
            #expect(
                over.errors.contains("group-enter-leave on mutex: ") && over.errors.contains("over its threshold of 10"), "\(over.errors)")
        }
    }
}
