import ArenaCLI
import Bench
import Contenders
import Foundation
import MinimalEngine
import Testing

/// Whether this test bundle was compiled with optimisation: specialisation is an optimisation, so only an
/// optimised build (`swift test -c release`) can show it.
#if DEBUG
    private let optimised = false
#else
    private let optimised = true
#endif

/// Every number `minimal-arena` measures is as specialised as the built-in engines': `ArenaMain.run(engines:rules:
/// workloads:)` is inlinable and generic, so `minimal-arena` itself compiles every built-in workload's trial for
/// `MinimalEngine`, and this package's own workload (`read-mostly-cache`) for every contender, the built-in ones
/// included. Without that, the trials would run the library's unspecialised code and measure the protocol's witness
/// tables.
@Suite struct SpecialisationTests {
    /// The trial closure `PointRunner.session` hands the session is the one entry into a workload's timed code; the
    /// optimiser either calls the trial from it or inlines the trial into it. Compiled for both concrete types, it
    /// is specialised code whichever it chose. (Unspecialised, the binary would hold only the library's generic
    /// closure, with no `<…, MinimalEngine.MinimalEngine>` in its name.)
    static func trial(_ workload: String, on engine: String) -> String {
        "specialization <\(workload), \(engine)> of closure #1 "
            + "(Swift.Int, Bench.TrialContext) throws(Bench.WorkloadError) -> Bench.Trial in Bench.PointRunner.session"
    }

    @Test(
        "minimal-arena holds the trial of every built-in workload compiled for MinimalEngine",
        .enabled(if: optimised, "specialisation needs an optimised build: swift test -c release"))
    func everyTrialSpecialised() throws {
        let symbols = try Symbols.demangled(in: Symbols.besideTests("minimal-arena"))
        // `Bench`'s workloads and the one that names the system engine's types (`ArenaCLI.ProtocolCostWorkload`).
        for workload in ArenaWorkloads.all {
            let specialised = Self.trial(String(reflecting: type(of: workload)), on: "MinimalEngine.MinimalEngine")
            #expect(symbols.contains { $0.contains(specialised) }, "no '\(specialised)' in minimal-arena")
        }
    }

    @Test(
        "minimal-arena holds read-mostly-cache's trial compiled for every contender with executors",
        .enabled(if: optimised, "specialisation needs an optimised build: swift test -c release"))
    func outsideWorkloadSpecialised() throws {
        let symbols = try Symbols.demangled(in: Symbols.besideTests("minimal-arena"))
        // The types' names as the demangler writes them (`swift`'s is a `LayerContender` with its generic arguments).
        let types: [Any.Type] = [
            SystemEngine.self, MutexEngine.self, LockFreeEngine.self, ActorEngine.self, SwiftDefaultEngine.self, MinimalEngine.self,
        ]
        let engines = types.map { String(reflecting: $0) }
        for engine in engines {
            let specialised = Self.trial("ReadMostlyCache.ReadMostlyCacheWorkload", on: engine)
            #expect(symbols.contains { $0.contains(specialised) }, "no '\(specialised)' in minimal-arena")
        }
    }
}

/// The symbol table of a binary, demangled.
enum Symbols {
    /// The path of `name` in the build folder, beside this test bundle.
    static func besideTests(_ name: String) -> String {
        Bundle.main.bundleURL.appendingPathComponent(name).path
    }

    /// Every defined symbol of `binary`, demangled: `nm` lists them, `swift demangle` reads them.
    static func demangled(in binary: String) throws -> [String] {
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw Problem("\(binary) is missing: build the package first") }
        let nm = try run(["nm", "--defined-only", binary], needing: "nm (apt-get install binutils)")
        return try run(["swift", "demangle", "--compact"], input: nm, needing: "swift demangle (the Swift toolchain)")
            .split(separator: "\n").map(String.init)
    }

    private static func run(_ arguments: [String], input: String = "", needing tool: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw Problem("this test needs \(tool)") }
        // Write and read at once on two threads, so that neither pipe can fill up and stall the other.
        let writer = Thread {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Problem("this test needs \(tool); '\(arguments[0])' exited \(process.terminationStatus)")
        }
        return String(decoding: output, as: UTF8.self)
    }

    struct Problem: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
