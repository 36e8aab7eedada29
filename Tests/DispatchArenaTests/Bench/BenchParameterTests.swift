import ArenaCLI
import ArenaContract
import Bench
import Contenders
import Testing

/// A workload of an outside author's that declares no parameters: its declaration is derived from its points.
struct UndeclaredParametersWorkload: Workload {
    let name = "undeclared"
    let summary = "points only"
    let headline = Headline.timePerOperation

    func points(_ settings: BenchSettings) -> [Point] {
        ["small", "large"].flatMap { size in
            settings.threads.map { Point(workload: name, parameters: [Parameter("size", size), Parameter("threads", $0)], threads: $0) }
        }
    }

    func trial<E: Engine>(_ point: Point, operations: Int, on engine: E, context: TrialContext) throws(WorkloadError) -> Trial {
        throw WorkloadError("not measured")
    }
}

extension ArenaTests {
    /// Typed point parameters: what each workload declares, the checks a point and a `--point` selection meet where
    /// they enter, and the typed reads. In this process, without measuring.
    @Suite
    struct BenchParameterTests {
        /// A full run, a quick one, and a quick one with thread counts of its own.
        static let settings: [BenchSettings] = [
            BenchSettings(), .quickDefaults(), BenchSettings(threads: [3, 5], quick: true),
        ]

        @Test("every built-in workload declares exactly the parameters and values its points take, in order (full and quick)")
        func declarationsMatchPoints() {
            for settings in Self.settings {
                for workload in ArenaWorkloads.all {
                    let points = workload.points(settings)
                    let declared = workload.parameters(settings)
                    let derived = ParameterDeclaration.derived(from: points)
                    let label = "\(workload.name) (quick \(settings.quick), threads \(settings.threads))"
                    #expect(declared.map(\.name) == derived.map(\.name), "\(label): names")
                    #expect(declared.map(\.values) == derived.map(\.values), "\(label): values")
                    for point in points {
                        #expect(point.parameters.map(\.name) == declared.map(\.name), "\(label): \(point.parameterPath)")
                    }
                    for declaration in declared {
                        switch declaration.kind {
                        case .integer: #expect(declaration.values.allSatisfy { Int($0) != nil }, "\(label): \(declaration.name)")
                        case .duration:
                            #expect(declaration.values.allSatisfy { Parameter.duration($0) != nil }, "\(label): \(declaration.name)")
                        case .choice: #expect(!declaration.values.isEmpty, "\(label): \(declaration.name)")
                        }
                    }
                }
            }
        }

        @Test("the choice parameters are declared by enums, the durations as durations, not derived as words")
        func typedKinds() {
            let kinds = Dictionary(
                uniqueKeysWithValues: ArenaWorkloads.all.flatMap { workload in
                    workload.parameters(BenchSettings()).map { ("\(workload.name).\($0.name)", $0.kind) }
                })
            #expect(kinds["contention.mode"] == .choice && kinds["contention.threads"] == .integer)
            #expect(kinds["apply.work"] == .duration && kinds["timer-accuracy.interval"] == .duration)
            #expect(kinds["op-throughput.width"] == .choice)
            #expect(
                ContentionWorkload().parameters(.quickDefaults()).first
                    == .choice(ContentionWorkload.Mode.self))
        }

        @Test("a workload without a declaration of its own gets one derived from its points")
        func derivedDeclaration() throws {
            let declared = UndeclaredParametersWorkload().parameters(BenchSettings(threads: [1, 4]))
            #expect(
                declared == [
                    ParameterDeclaration(name: "size", kind: .choice, values: ["small", "large"]),
                    ParameterDeclaration(name: "threads", kind: .integer, values: ["1", "4"]),
                ])
            let settings = BenchSettings(threads: [1, 4])
            try UndeclaredParametersWorkload().check(UndeclaredParametersWorkload().points(settings)[0], settings: settings)
        }

        @Test("every point of every built-in workload passes its workload's check (full and quick)")
        func everyPointDeclared() throws {
            for settings in Self.settings {
                for workload in ArenaWorkloads.all {
                    for point in workload.points(settings) { try workload.check(point, settings: settings) }
                }
            }
        }

        /// Points that are not declared, each with words the check's message must contain.
        static let undeclared: [(point: Point, message: String)] = [
            (
                Point(workload: "contention", parameters: [Parameter("mode", "snyc"), Parameter("threads", 2)], threads: 2),
                "contention's mode is one of sync, async-write, not 'snyc'"
            ),
            (
                Point(workload: "contention", parameters: [Parameter("mdoe", "sync"), Parameter("threads", 2)], threads: 2),
                "contention has no parameter 'mdoe' (it takes parameters mode, threads)"
            ),
            (
                Point(workload: "contention", parameters: [Parameter("mode", "sync")], threads: 2),
                "contention's point mode:sync lacks threads"
            ),
            (
                Point(workload: "contention", parameters: [Parameter("mode", "sync"), Parameter("threads", 2)], threads: 1),
                "runs 2 threads, not 1"
            ),
            (
                Point(workload: "apply", parameters: [Parameter("n", 1000), Parameter("work", "1ms")]),
                "apply's work is one of 0ns, 1us, 10us, not '1ms'"
            ),
            (
                Point(workload: "op-graph", parameters: [Parameter("shape", "chain"), Parameter("width", 8), Parameter("depth", 8)]),
                "shape:chain/width:8/depth:8 is not one of op-graph's points"
            ),
            (
                Point(workload: "pingpong", parameters: [Parameter("mode", "sync")]),
                "pingpong has no parameter 'mode' (it takes no parameters)"
            ),
        ]

        @Test(
            "a point with an unknown parameter, an undeclared value, a parameter missing or an undeclared combination fails the check, saying which"
        )
        func undeclaredPoints() throws {
            let settings = BenchSettings(threads: [2], quick: true)
            for (point, message) in Self.undeclared {
                let workload = try #require(ArenaWorkloads.workload(named: point.workload))
                #expect(throws: UndeclaredPoint.self, "\(point.parameterPath)") { try workload.check(point, settings: settings) }
                do { try workload.check(point, settings: settings) } catch {
                    #expect(error.message.contains(message), "\(error.message)")
                    #expect(!error.message.contains("\n"))
                }
            }
        }

        @Test("a child's point request is checked against its workload by name; an unknown workload is named too")
        func childRequestCheck() {
            let settings = BenchSettings(threads: [2], quick: true)
            func request(_ point: Point) -> TrialRequest {
                TrialRequest(
                    engine: "system", point: point, settings: settings, spinnerStepsPerMicrosecond: 1, budgetSeconds: 1,
                    lifetimeSeconds: 1)
            }
            let good = request(ContentionWorkload().points(settings)[0])
            #expect(throws: Never.self) { try TrialChild.check(good, among: ArenaWorkloads.all) }
            let bad = request(Self.undeclared[0].point)
            #expect(throws: UndeclaredPoint.self) { try TrialChild.check(bad, among: ArenaWorkloads.all) }
            let unknown = request(Point(workload: "nope", parameters: []))
            #expect(throws: UndeclaredPoint("no workload 'nope' (known: contention)")) {
                try TrialChild.check(unknown, among: [ContentionWorkload()])
            }
        }

        @Test("the typed reads: a choice as its enum, a duration from its label; labels in the largest whole unit")
        func typedReads() {
            let point = Point(workload: "contention", parameters: [Parameter(ContentionWorkload.Mode.asyncWrite), Parameter("threads", 4)])
            #expect(point.parameterPath == "mode:async-write/threads:4")
            #expect(point.choice(ContentionWorkload.Mode.self) == .asyncWrite)
            #expect(ContentionWorkload.Mode(Point(workload: "contention", parameters: [Parameter("mode", "snyc")])) == nil)
            let labels: [(Duration, String)] = [
                (.zero, "0ns"), (.nanoseconds(100), "100ns"), (.microseconds(1), "1us"), (.microseconds(10), "10us"),
                (.milliseconds(1), "1ms"), (.milliseconds(10), "10ms"), (.seconds(2), "2s"), (.nanoseconds(1_500), "1500ns"),
            ]
            for (duration, label) in labels {
                #expect(Parameter.label(duration) == label)
                #expect(Parameter.duration(label) == duration)
                #expect(Point(workload: "apply", parameters: [Parameter("work", duration)]).duration("work") == duration)
            }
            #expect(Parameter.duration("10") == nil && Parameter.duration("ms") == nil && Parameter.duration("1 ms") == nil)
        }

        @Test("--point: values of one name are alternatives, different names must all hold, a point without the name is left out")
        func selectionKeeps() throws {
            let selection = try PointSelection(parsing: ["threads:1", "mode:sync", "threads:4", "threads:1"])
            #expect(selection.description == "threads:1, threads:4, mode:sync")
            let settings = BenchSettings(threads: [1, 2, 4], quick: true)
            let plan = BenchPlan(
                workloads: [ContentionWorkload(), SourceMergeWorkload()], engines: [EngineProfile(name: "mutex")],
                settings: settings, selection: selection)
            #expect(
                plan.entries.map { $0.point.benchmarkName(engine: $0.engine) } == [
                    "contention/mutex/mode:sync/threads:1", "contention/mutex/mode:sync/threads:4",
                ])
            #expect(plan.omissions.isEmpty)
            let threadsOnly = BenchPlan(
                workloads: [ContentionWorkload(), SourceMergeWorkload()], engines: [EngineProfile(name: "mutex")],
                settings: settings, selection: try PointSelection(parsing: ["threads:2"]))
            #expect(
                threadsOnly.entries.map { $0.point.benchmarkName(engine: $0.engine) } == [
                    "contention/mutex/mode:sync/threads:2", "contention/mutex/mode:async-write/threads:2", "source-merge/mutex/threads:2",
                ])
            let all = BenchPlan(workloads: [ContentionWorkload()], engines: [EngineProfile(name: "mutex")], settings: settings)
            #expect(all.entries.count == 6)
        }

        @Test(
            "--point: an unknown name, an undeclared value, a malformed item or a selection keeping no point is an error naming the workloads and what they take",
            arguments: [
                (
                    ["mdoe:sync"],
                    "--point mdoe:sync: no chosen workload has a parameter 'mdoe' (contention takes mode, threads; apply takes n, work)"
                ),
                (
                    ["mode:snyc"],
                    "--point mode:snyc: no chosen workload declares that value of mode (contention takes sync, async-write in a quick run)"
                ),
                (
                    ["threads:3"],
                    "--point threads:3: no chosen workload declares that value of threads (contention takes 1, 2 in a quick run)"
                ),
                (["mode:sync", "n:1000"], "--point mode:sync, n:1000: no point of contention, apply has all of these"),
                (["mode"], "--point wants NAME:VALUE"), ([":sync"], "--point wants NAME:VALUE"), (["mode:"], "--point wants NAME:VALUE"),
            ])
        func selectionErrors(_ items: [String], _ message: String) {
            let settings = BenchSettings(threads: [1, 2], quick: true)
            do {
                try PointSelection(parsing: items).check(against: [ContentionWorkload(), ApplyWorkload()], settings: settings)
                Issue.record("\(items) was accepted")
            } catch {
                #expect(error.message.hasPrefix(message), "\(error.message)")
            }
        }
    }
}
