import Bench
import Foundation
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
                ["instructions-child", "--engine", "nope", "--path", "sync", "--operations", "1"],
                ["instructions-child", "--engine", "mutex", "--path", "sync", "--operations", "-1"],
            ])
        func usageError(_ arguments: [String]) throws {
            let out = Self.freshPath()
            let withOut = arguments[0] == "instructions" ? arguments + ["--out", out] : arguments
            ArenaExecutable.expectUsageError(try ArenaExecutable.run(withOut), withOut)
            #expect(!FileManager.default.fileExists(atPath: out), "\(arguments): created \(out)")
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
        }
    }
}
