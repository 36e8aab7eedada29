import Bench
import Foundation
import Testing

extension ArenaTests {
    /// The results-format seam: the registry, every format through `ResultsWriter`, the format that reads back, and
    /// `arena bench --results-format`.
    @Suite
    struct ResultsFormatTests {
        typealias Sample = BenchReportTests

        // MARK: The registry

        @Test("The registry: distinct names and file names, lists parsed in registry order, unknown names refused")
        func registry() throws {
            let names = ResultsFormats.names
            #expect(names == ["json", "csv"])
            #expect(Set(names).count == names.count)
            let files = ResultsFormats.all.map { $0.fileName(for: "contention") }
            #expect(Set(files).count == files.count, "\(files)")
            #expect(files.allSatisfy { $0.hasPrefix("contention.") })
            #expect(ResultsFormats.format(named: "csv")?.name == "csv")
            #expect(ResultsFormats.format(named: "jmh") == nil)
            #expect(try ResultsFormats.parse("csv,json").map(\.name) == ["json", "csv"])
            #expect(try ResultsFormats.parse(["csv", "csv, json"]).map(\.name) == ["json", "csv"])
            #expect(ResultsFormats.readBack.name == "json")
            #expect(throws: UnknownResultsFormat(name: "jmh", known: names)) { try ResultsFormats.parse("json,jmh") }
            #expect(throws: UnknownResultsFormat(name: "", known: names)) { try ResultsFormats.parse("json,,csv") }
            #expect(throws: UnknownResultsFormat(name: "", known: names)) { try ResultsFormats.parse("") }
            #expect("\(UnknownResultsFormat(name: "jmh", known: names))" == "unknown results format 'jmh' (known: json, csv)")
        }

        // MARK: Every format through the seam

        @Test("Every registered format renders the sample, the same way twice, and ResultsWriter writes exactly that")
        func everyFormatRenders() throws {
            let results = Sample.sampleResults()
            let directory = NSTemporaryDirectory() + "arena-formats-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let writer = try ResultsWriter(directory: directory, context: Sample.context)
            #expect(writer.formats.map(\.name) == ResultsFormats.names, "every registered format by default")
            let workload = try #require(WorkloadCatalog.workload(named: "contention"))
            for result in results { try writer.record(result, of: workload) }
            #expect(writer.files == ResultsFormats.all.map { directory + "/" + $0.fileName(for: "contention") })
            for format in ResultsFormats.all {
                let text = format.render(results, headline: workload.headline, context: Sample.context)
                #expect(text == format.render(results, headline: workload.headline, context: Sample.context), "\(format.name)")
                #expect(text.hasSuffix("\n") && text.split(separator: "\n").count > 1, "\(format.name)")
                for engine in ["system", "mutex"] { #expect(text.contains(engine), "\(format.name): no \(engine)") }
                let written = try String(contentsOfFile: directory + "/" + format.fileName(for: "contention"), encoding: .utf8)
                #expect(written == text, "\(format.name): the file is not what the format renders")
                if format.fileName(for: "contention").hasSuffix(".json") {
                    #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil, "\(format.name): not JSON")
                }
            }
        }

        @Test("ResultsWriter writes only the formats it is given")
        func writerSubset() throws {
            let directory = NSTemporaryDirectory() + "arena-formats-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let writer = try ResultsWriter(directory: directory, context: Sample.context, formats: [ResultsFormats.csv])
            try writer.record(Sample.sampleResults()[0], of: try #require(WorkloadCatalog.workload(named: "contention")))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["contention.csv"])
        }

        @Test("The reading format round-trips: points, repetitions and failures come back; the folder looks for the workloads it is given")
        func readBack() throws {
            let results = Sample.sampleResults()
            let readable = ResultsFormats.all.compactMap { $0 as? any ReadableResultsFormat }
            #expect(readable.map(\.name) == ["json"])
            for format in readable {
                let document = try format.read(format.render(results, headline: .timePerOperation, context: Sample.context))
                #expect(document.context == Sample.context)
                #expect(document.results.map(\.name) == results.map(\.name))
                #expect(document.results.map(\.repetitions.count) == results.map(\.repetitions.count))
                #expect(document.results.map(\.failure) == results.map(\.failure))
                for (before, after) in zip(results, document.results) {
                    #expect(after.repetitions.map(\.wallNanoseconds) == before.repetitions.map(\.wallNanoseconds))
                }
            }
            let directory = NSTemporaryDirectory() + "arena-formats-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let contention = try #require(WorkloadCatalog.workload(named: "contention"))
            let pingpong = try #require(WorkloadCatalog.workload(named: "pingpong"))
            let apply = try #require(WorkloadCatalog.workload(named: "apply"))
            let writer = try ResultsWriter(directory: directory, context: Sample.context)
            for result in results { try writer.record(result, of: contention) }
            try writer.record(Self.point("pingpong", "system", perOperation: [900, 950, 1000]), of: pingpong)
            let folder = try ResultsFolder.load(directory, workloads: [pingpong, contention, apply])
            #expect(folder.workloads.map(\.workload.name) == ["pingpong", "contention"], "in the order asked, apply has no file")
            #expect(folder.workloads[1].results.map(\.name) == results.map(\.name))
            #expect(folder.context == Sample.context)
            #expect(try ResultsFolder.load(directory, workloads: [pingpong]).workloads.map(\.workload.name) == ["pingpong"])
            #expect(try ResultsFolder.load(directory, workloads: []).workloads.isEmpty)
            try "not json".write(toFile: directory + "/apply.json", atomically: true, encoding: .utf8)
            #expect(throws: ResultsReadError.self) { try ResultsFolder.load(directory, workloads: [apply]) }
        }

        /// A point of `workload` on `engine` whose repetitions took `perOperation` wall ns per operation (1000 operations,
        /// `itemsPerOperation` items each), with `counters` per repetition.
        static func point(_ workload: String, _ engine: String, parameters: [Parameter] = [], perOperation: [UInt64],
                          itemsPerOperation: Int = 1, counters: [String: [Double]] = [:]) -> PointResult {
            let repetitions = perOperation.enumerated().map { index, nanoseconds in
                Repetition(operations: 1000, items: 1000 * itemsPerOperation, wallNanoseconds: nanoseconds * 1000,
                           cpuNanoseconds: nanoseconds * 1000, counters: counters.mapValues { $0[index] })
            }
            return PointResult(engine: engine, point: Point(workload: workload, parameters: parameters), settings: Sample.settings,
                               repetitions: repetitions)
        }

        // MARK: arena bench --results-format

        @Test("bench --results-format: an unknown or empty name is a usage error, and nothing is written", arguments: [
            ["bench", "pingpong", "--results-format", "jmh"],
            ["bench", "pingpong", "--results-format", "json,,csv"],
            ["bench", "pingpong", "--results-format", ""],
            ["bench", "pingpong", "--results-format", "json", "--results-format", "xml"],
        ])
        func resultsFormatUsageError(_ arguments: [String]) throws {
            let out = BenchCLITests.freshPath()
            let run = try ArenaExecutable.run(arguments + ["--out", out])
            ArenaExecutable.expectUsageError(run, arguments)
            #expect(run.errors.contains("--results-format") && run.errors.contains("known: json, csv"), "\(run.errors)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(arguments): created \(out)")
        }

        @Test("bench --results-format writes only the chosen files")
        func resultsFormatRun() throws {
            let out = BenchCLITests.freshPath()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let run = try ArenaExecutable.run(["bench", "pingpong", "--engine", "system", "--repetitions", "2", "--min-time", "0.01",
                                               "--quick", "--quiet", "--results-format", "csv", "--out", out])
            #expect(run.status == 0, "exit \(run.status): \(run.errors)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["pingpong.csv"])
            #expect(run.output.contains("wrote 1 files"), "\(run.output)")
        }
    }
}
