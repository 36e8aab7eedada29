import ArenaContract
import Conformance
import Contenders
import Foundation
import Testing

extension ArenaTests {
    /// The generated scenarios of `arena explore`: the generator, the model and its check, the shrinker and the
    /// command.
    @Suite
    struct ScenarioTests {
        static let generator = ScenarioGenerator(features: .init(blockingInBlocks: true))

        @Test("a seed makes the same valid program every time, and seeds make different programs")
        func seedsReplay() {
            var seen: Set<String> = []
            for seed in UInt64(0)..<300 {
                let scenario = Self.generator.scenario(seed: seed)
                #expect(scenario == Self.generator.scenario(seed: seed))
                #expect(scenario.normalized() == scenario, "seed \(seed) made steps the model leaves out")
                #expect(!scenario.steps.isEmpty && scenario.steps.count <= 30)
                seen.insert(scenario.description)
            }
            #expect(seen.count > 290, "only \(seen.count) distinct programs from 300 seeds")
            let syncing = seenPrograms(Self.generator).filter(Self.syncsFromBlock).count
            #expect(syncing > 10, "only \(syncing) of 300 programs keep a sync from a block")
        }

        /// Whether a printed program has a block that syncs onto a queue ("{ sync q1 b3" or "; sync q1 b3").
        static func syncsFromBlock(_ program: String) -> Bool {
            program.contains("{ sync q") || program.contains("; sync q")
        }

        func seenPrograms(_ generator: ScenarioGenerator) -> [String] {
            (UInt64(0)..<300).map { generator.scenario(seed: $0).description }
        }

        @Test("an engine without blocking-in-blocks gets no lock actions and no sync from a block")
        func featuresShapePrograms() {
            let plain = ScenarioGenerator(features: .init(blockingInBlocks: false))
            for seed in UInt64(0)..<200 {
                let scenario = plain.scenario(seed: seed)
                #expect(scenario.locks == 0)
                #expect(!scenario.description.contains("lock l") && !Self.syncsFromBlock(scenario.description))
            }
        }

        @Test("tokens: a seed, or a seed with ascending step indices; anything else is refused with a reason")
        func tokens() throws {
            #expect(try ScenarioToken(parsing: "42") == ScenarioToken(seed: 42))
            #expect(try ScenarioToken(parsing: "42@0,3,7") == ScenarioToken(seed: 42, kept: [0, 3, 7]))
            #expect(ScenarioToken(seed: 42, kept: [0, 3, 7]).description == "42@0,3,7")
            for bad in ["", "x", "-1", "18446744073709551616", "4@", "4@3,1", "4@1,1", "4@a", "4@1,,2"] {
                #expect(throws: ScenarioTokenError.self, "\(bad)") { try ScenarioToken(parsing: bad) }
            }
            let steps = Self.generator.scenario(seed: 7).steps.count
            #expect(throws: ScenarioTokenError.self) { try ScenarioToken(seed: 7, kept: [steps]).scenario(Self.generator) }
            let one = try ScenarioToken(seed: 7, kept: [0]).scenario(Self.generator)
            #expect(one.steps.count <= 1)
        }

        @Test(
            "the model leaves out what the contract forbids at that point: a resume with nothing suspended, a sync onto a held queue, a retarget of an active queue"
        )
        func normalization() {
            let block = Scenario.Block(id: 0)
            let scenario = Scenario(
                queues: [.init(kind: .serial), .init(kind: .serial, inactive: true)],
                steps: [
                    .resume(0), .suspend(0), .sync(queue: 0, block), .resume(0), .retarget(0, to: nil), .retarget(1, to: 0),
                    .activate(1), .retarget(1, to: nil), .itemCancel(item: 3),
                ])
            #expect(scenario.validSteps() == [1, 3, 5, 6])
        }

        @Test("blocks wait inside only for a chain with a later root, so no two chains wait for each other")
        func waitsInsideAreAcyclic() {
            let queues: [Scenario.QueueSpec] = [.init(kind: .serial), .init(kind: .serial, target: 0), .init(kind: .serial)]
            func handoff(waiter: Int, giver: Int) -> Scenario.Step {
                .handoff(waiters: [.init(queue: waiter, block: .init(id: 0))], giver: .init(queue: giver, block: .init(id: 1)))
            }
            func sync(from: Int, onto: Int) -> Scenario.Step {
                .async(queue: from, .init(id: 2, actions: [.nestedSync(queue: onto, block: 3)]))
            }
            // q1 runs through q0: a chain rooted at q0; q2 is a root of its own, later.
            #expect(Scenario(queues: queues, steps: [handoff(waiter: 1, giver: 2)]).validSteps() == [0])
            #expect(Scenario(queues: queues, steps: [handoff(waiter: 2, giver: 1)]).validSteps() == [])
            #expect(Scenario(queues: queues, steps: [handoff(waiter: 1, giver: 0)]).validSteps() == [], "one chain")
            #expect(Scenario(queues: queues, steps: [sync(from: 1, onto: 2)]).validSteps() == [0])
            #expect(Scenario(queues: queues, steps: [sync(from: 2, onto: 1)]).validSteps() == [])
            #expect(Scenario(queues: queues, steps: [.suspend(2), sync(from: 1, onto: 2)]).validSteps() == [0], "a held target")
        }

        @Test(
            "threads that meet: only where nothing holds the chain, a sync beside only through concurrent links; a lost meeting is missing")
        func meetings() {
            let queues: [Scenario.QueueSpec] = [.init(kind: .serial), .init(kind: .concurrent, target: 0), .init(kind: .concurrent)]
            func beside(_ q: Int) -> Scenario.Step { .syncBeside(queue: q, waiter: .init(id: 0), reader: .init(id: 1)) }
            #expect(Scenario(queues: queues, steps: [beside(2)]).validSteps() == [0])
            #expect(Scenario(queues: queues, steps: [beside(1)]).validSteps() == [], "through serial q0")
            #expect(Scenario(queues: queues, steps: [.suspend(2), beside(2)]).validSteps() == [0], "onto a held queue")
            #expect(Scenario(queues: queues, steps: [.pingPong(queue: 1, .init(id: 0))]).validSteps() == [0])
            #expect(
                Scenario(queues: queues, steps: [.pingPong(queue: 1, .init(id: 0)), .suspend(0)]).validSteps() == [1],
                "held later, while the block may still wait")

            let model = ScenarioModel(Scenario(queues: queues, steps: [beside(2), .pingPong(queue: 2, .init(id: 2))]))
            #expect(model.waits[1] == .success)
            let met = [
                Self.e(.mark, 0), Self.e(.start, 0, -1), Self.e(.start, 1, -1), Self.e(.end, 1), Self.e(.handoff, 0, 1), Self.e(.end, 0),
                Self.e(.returned, 0), Self.e(.mark, 1), Self.e(.start, 2, -1), Self.e(.handoff, 2, 1), Self.e(.end, 2),
                Self.e(.returned, 1, 1),
            ]
            #expect(ScenarioCheck.check(met, against: model) == nil)
            var waiterAlone = met
            waiterAlone[4] = Self.e(.handoff, 0, 0)
            #expect(ScenarioCheck.check(waiterAlone, against: model)?.key == .missing)
            var scriptLate = met
            scriptLate[9] = Self.e(.handoff, 2, 0)
            #expect(ScenarioCheck.check(scriptLate, against: model)?.detail.contains("the script gives") == true)
        }

        /// One serial queue, two blocks: the trace a correct engine gives, and broken ones.
        static let twoBlocks = ScenarioModel(
            Scenario(
                queues: [.init(kind: .serial, specific: 5)], groups: 1,
                steps: [.async(queue: 0, .init(id: 0)), .async(queue: 0, .init(id: 1)), .groupWait(group: 0)]))

        /// An event of a hand-written trace, at time 0.
        static func e(_ kind: ScenarioEvent.Kind, _ subject: Int, _ value: Int64 = 0) -> ScenarioEvent {
            ScenarioEvent(kind: kind, subject: subject, value: value, time: 0)
        }

        @Test("the check passes an allowed trace and names what each broken one did")
        func check() {
            let model = Self.twoBlocks
            #expect(model.waits[2] == .success)
            let good = [
                Self.e(.mark, 0), Self.e(.returned, 0), Self.e(.mark, 1), Self.e(.returned, 1), Self.e(.start, 0, 5), Self.e(.end, 0),
                Self.e(.start, 1, 5), Self.e(.end, 1),
                Self.e(.mark, 2), Self.e(.returned, 2, 1),
            ]
            #expect(ScenarioCheck.check(good, against: model) == nil)
            let overlapping = [
                Self.e(.mark, 0), Self.e(.returned, 0), Self.e(.mark, 1), Self.e(.returned, 1), Self.e(.start, 0, 5), Self.e(.start, 1, 5),
                Self.e(.end, 0), Self.e(.end, 1),
                Self.e(.mark, 2), Self.e(.returned, 2, 1),
            ]
            #expect(ScenarioCheck.check(overlapping, against: model)?.key == .overlap)
            let reordered = [
                Self.e(.mark, 0), Self.e(.returned, 0), Self.e(.mark, 1), Self.e(.returned, 1), Self.e(.start, 1, 5), Self.e(.end, 1),
                Self.e(.start, 0, 5), Self.e(.end, 0),
                Self.e(.mark, 2), Self.e(.returned, 2, 1),
            ]
            #expect(ScenarioCheck.check(reordered, against: model)?.key == .reordered)
            let twice = good + [Self.e(.start, 1, 5), Self.e(.end, 1)]
            #expect(ScenarioCheck.check(twice, against: model)?.key == .extra)
            let lost = [
                Self.e(.mark, 0), Self.e(.returned, 0), Self.e(.mark, 1), Self.e(.returned, 1), Self.e(.start, 0, 5), Self.e(.end, 0),
                Self.e(.mark, 2), Self.e(.returned, 2, 0),
            ]
            #expect(ScenarioCheck.check(lost, against: model)?.key == .missing)
            let wrongSpecific = [
                Self.e(.mark, 0), Self.e(.returned, 0), Self.e(.mark, 1), Self.e(.returned, 1), Self.e(.start, 0, -1), Self.e(.end, 0),
                Self.e(.start, 1, 5), Self.e(.end, 1),
                Self.e(.mark, 2), Self.e(.returned, 2, 1),
            ]
            #expect(ScenarioCheck.check(wrongSpecific, against: model)?.key == .wrongValue)
        }

        @Test(
            "a block submitted from a block keeps its place in a serial queue's order: after what was submitted before its parent started")
        func nestedOrder() {
            let model = ScenarioModel(
                Scenario(
                    queues: [.init(kind: .serial), .init(kind: .concurrent)],
                    steps: [.async(queue: 0, .init(id: 0)), .async(queue: 1, .init(id: 1, actions: [.nested(queue: 0, block: 2)]))]))
            let submitted = [
                Self.e(.mark, 0), Self.e(.returned, 0), Self.e(.mark, 1), Self.e(.returned, 1), Self.e(.start, 1, -1), Self.e(.end, 1),
            ]
            let inOrder = submitted + [Self.e(.start, 0, -1), Self.e(.end, 0), Self.e(.start, 2, -1), Self.e(.end, 2)]
            #expect(ScenarioCheck.check(inOrder, against: model) == nil)
            let jumped = submitted + [Self.e(.start, 2, -1), Self.e(.end, 2), Self.e(.start, 0, -1), Self.e(.end, 0)]
            #expect(ScenarioCheck.check(jumped, against: model)?.key == .reordered)
        }

        @Test("suspension holds what is submitted while suspended, and a wait on it must time out")
        func suspensionModel() {
            let model = ScenarioModel(
                Scenario(
                    queues: [.init(kind: .concurrent)], groups: 1,
                    steps: [
                        .suspend(0), .groupAsync(group: 0, queue: 0, .init(id: 0)), .groupWait(group: 0), .resume(0), .groupWait(group: 0),
                    ]))
            #expect(model.waits[2] == .timedOut)
            #expect(model.waits[4] == .success)
            let early = [
                Self.e(.mark, 0), Self.e(.returned, 0), Self.e(.mark, 1), Self.e(.returned, 1), Self.e(.start, 0, -1), Self.e(.end, 0),
                Self.e(.mark, 2), Self.e(.returned, 2, 1),
                Self.e(.mark, 3), Self.e(.mark, 4), Self.e(.returned, 4, 1),
            ]
            #expect(ScenarioCheck.check(early, against: model)?.key == .early)
            let ranWhileHeld = [
                Self.e(.mark, 0), Self.e(.returned, 0), Self.e(.mark, 1), Self.e(.returned, 1), Self.e(.start, 0, -1), Self.e(.end, 0),
                Self.e(.mark, 2), Self.e(.returned, 2, 0),
                Self.e(.mark, 3), Self.e(.mark, 4), Self.e(.returned, 4, 1),
            ]
            #expect(ScenarioCheck.check(ranWhileHeld, against: model)?.key == .ranWhileHeld)
            let good = [
                Self.e(.mark, 0), Self.e(.returned, 0), Self.e(.mark, 1), Self.e(.returned, 1), Self.e(.mark, 2), Self.e(.returned, 2, 0),
                Self.e(.mark, 3), Self.e(.start, 0, -1),
                Self.e(.end, 0), Self.e(.mark, 4), Self.e(.returned, 4, 1),
            ]
            #expect(ScenarioCheck.check(good, against: model) == nil)
        }

        @Test(
            "contexts: a call made in a block, a barrier, a sync from a block or a handler; the model keeps out what would deadlock and loosens what the context may hold back"
        )
        func contexts() {
            let queues: [Scenario.QueueSpec] = [
                .init(kind: .serial, specific: 1), .init(kind: .concurrent, specific: 2), .init(kind: .serial, target: 0),
            ]
            let block = Scenario.Block(id: 0)
            func within(_ context: Scenario.Context, _ step: Scenario.Step) -> Scenario.Step { .within(context, host: 9, step) }
            // A sync onto the chain the context runs through waits for itself; onto a later root it finishes.
            #expect(Scenario(queues: queues, steps: [within(.block(queue: 2, barrier: false), .sync(queue: 0, block))]).validSteps() == [])
            #expect(Scenario(queues: queues, steps: [within(.block(queue: 0, barrier: false), .sync(queue: 1, block))]).validSteps() == [0])
            // A held queue runs no context; a context never wraps another or a meeting.
            #expect(
                Scenario(queues: queues, steps: [.suspend(1), within(.handler(.event, queue: 1), .async(queue: 0, block))]).validSteps()
                    == [0])
            #expect(
                Scenario(
                    queues: queues, steps: [within(.block(queue: 1, barrier: false), within(.block(queue: 0, barrier: false), .suspend(0)))]
                )
                .validSteps() == [])
            // A wait inside a serial chain's block, on a block that chain runs, may time out: the caller holds it.
            let waiting = ScenarioModel(
                Scenario(
                    queues: queues, groups: 1,
                    steps: [.groupAsync(group: 0, queue: 2, .init(id: 1)), within(.block(queue: 0, barrier: false), .groupWait(group: 0))]))
            #expect(waiting.waits[1] == .either)
            let apart = ScenarioModel(
                Scenario(
                    queues: queues, groups: 1,
                    steps: [.groupAsync(group: 0, queue: 1, .init(id: 1)), within(.block(queue: 0, barrier: false), .groupWait(group: 0))]))
            #expect(apart.waits[1] == .success)
            // The host reads its own chain's value, the one of a sync made from a block reads the sync's queue's.
            let synced = ScenarioModel(
                Scenario(queues: queues, steps: [within(.syncInside(from: 0, outer: 8, onto: 1), .async(queue: 2, block))]))
            #expect(synced.blocks[9]?.specifics == [2] && synced.blocks[8]?.specifics == [1] && synced.hosts == [0: 9])
            let trace = [
                Self.e(.contextCall, 0), Self.e(.contextReturned, 0), Self.e(.start, 8, 1), Self.e(.start, 9, 2), Self.e(.mark, 0),
                Self.e(.returned, 0), Self.e(.end, 9), Self.e(.end, 8), Self.e(.start, 0, 1), Self.e(.end, 0),
            ]
            #expect(ScenarioCheck.check(trace, against: synced) == nil)
            var wrongQueue = trace
            wrongQueue[3] = Self.e(.start, 9, 1)
            #expect(ScenarioCheck.check(wrongQueue, against: synced)?.key == .wrongValue)
            #expect(ScenarioCheck.check(Array(trace[0...2]), against: synced)?.detail.contains("did not end within 5 s") == true)
        }

        @Test("specific values set after creation: a block reads one its chain had while it could start, getSpecific its queue's own")
        func specificsChange() {
            let scenario = Scenario(
                queues: [.init(kind: .serial, specific: 1), .init(kind: .serial, target: 0)],
                steps: [
                    .async(queue: 1, .init(id: 0)), .setSpecific(queue: 1, value: 20), .getSpecific(queue: 1), .getSpecific(queue: 0),
                    .sync(queue: 1, .init(id: 1)), .setSpecific(queue: 1, value: nil),
                ])
            let model = ScenarioModel(scenario)
            #expect(model.blocks[0]?.specifics == [1, 20] && model.blocks[1]?.specifics == [20])
            #expect(model.reads[2] == .some(20) && model.reads[3] == .some(1))
            let good = [
                Self.e(.mark, 0), Self.e(.returned, 0), Self.e(.mark, 1), Self.e(.returned, 1), Self.e(.start, 0, 20), Self.e(.end, 0),
                Self.e(.mark, 2), Self.e(.returned, 2, 20), Self.e(.mark, 3), Self.e(.returned, 3, 1), Self.e(.mark, 4),
                Self.e(.start, 1, 20),
                Self.e(.end, 1), Self.e(.returned, 4), Self.e(.mark, 5), Self.e(.returned, 5),
            ]
            #expect(ScenarioCheck.check(good, against: model) == nil)
            var chainRead = good
            chainRead[7] = Self.e(.returned, 2, 1)
            #expect(ScenarioCheck.check(chainRead, against: model)?.key == .wrongValue)
            var stale = good
            stale[11] = Self.e(.start, 1, 1)
            #expect(ScenarioCheck.check(stale, against: model)?.key == .wrongValue)
        }

        @Test("once: one body runs, of the first perform, and every perform returns after it ended")
        func once() {
            let model = ScenarioModel(
                Scenario(
                    queues: [.init(kind: .concurrent)], onces: 1,
                    steps: [
                        .async(queue: 0, .init(id: 0, actions: [.once(0, block: 1)])), .once(0, body: .init(id: 2)),
                    ]))
            #expect(model.onces[0]?.bodies.sorted() == [1, 2] && model.onces[0]?.certain == true)
            let good = [
                Self.e(.mark, 0), Self.e(.returned, 0), Self.e(.start, 0, -1), Self.e(.start, 1), Self.e(.mark, 1), Self.e(.end, 1),
                Self.e(.performed, 0, 0), Self.e(.end, 0), Self.e(.performed, 0, -1), Self.e(.returned, 1),
            ]
            #expect(ScenarioCheck.check(good, against: model) == nil)
            var twice = good
            twice.insert(contentsOf: [Self.e(.start, 2), Self.e(.end, 2)], at: 5)
            #expect(ScenarioCheck.check(twice, against: model)?.key == .extra)
            var early = good
            early.swapAt(5, 6)
            #expect(ScenarioCheck.check(early, against: model)?.key == .early)
        }

        @Test(
            "user-data sources: calls one at a time with data the merges account for, all of it where every merge must arrive; the cancel handler after the last call; nothing before activation"
        )
        func sources() {
            let model = ScenarioModel(
                Scenario(
                    queues: [.init(kind: .serial)],
                    steps: [
                        .source(source: 0, queue: 0, merge: .add, handler: .init(id: 0), registration: 1, cancelHandler: 2, inactive: true),
                        .merge(source: 0, value: 2), .merge(source: 0, value: 3),
                    ]))
            #expect(model.sources[0]?.exact == true && model.sources[0]?.total == 5)
            #expect(model.epilogue == [.sourceActivate(source: 0)])
            func data(_ value: Int64) -> ScenarioEvent { Self.e(.data, 0, value) }
            let head = [
                Self.e(.mark, 0), Self.e(.returned, 0), Self.e(.mark, 1), Self.e(.returned, 1), Self.e(.mark, 2), Self.e(.returned, 2),
                Self.e(.mark, 3), Self.e(.returned, 3), Self.e(.start, 1, -1), Self.e(.end, 1),
            ]
            let good = head + [Self.e(.start, 0, -1), data(5), Self.e(.end, 0), Self.e(.start, 2, -1), Self.e(.end, 2)]
            #expect(ScenarioCheck.check(good, against: model) == nil)
            let split =
                head + [
                    Self.e(.start, 0, -1), data(2), Self.e(.end, 0), Self.e(.start, 0, -1), data(3), Self.e(.end, 0), Self.e(.start, 2, -1),
                    Self.e(.end, 2),
                ]
            #expect(ScenarioCheck.check(split, against: model) == nil, "coalescing is free")
            let lost = head + [Self.e(.start, 0, -1), data(2), Self.e(.end, 0), Self.e(.start, 2, -1), Self.e(.end, 2)]
            #expect(ScenarioCheck.check(lost, against: model)?.key == .missing)
            let overlapping =
                head + [
                    Self.e(.start, 0, -1), Self.e(.start, 0, -1), data(2), data(3), Self.e(.end, 0), Self.e(.end, 0), Self.e(.start, 2, -1),
                    Self.e(.end, 2),
                ]
            #expect(ScenarioCheck.check(overlapping, against: model)?.key == .overlap)
            let cancelFirst = head + [Self.e(.start, 2, -1), Self.e(.start, 0, -1), data(5), Self.e(.end, 0), Self.e(.end, 2)]
            #expect(ScenarioCheck.check(cancelFirst, against: model) != nil)
            let early =
                [Self.e(.mark, 0), Self.e(.returned, 0), Self.e(.start, 1, -1), Self.e(.end, 1)]
                + Array(good[2...]).filter {
                    !($0.kind == .start && $0.subject == 1) && !($0.kind == .end && $0.subject == 1)
                }
            #expect(ScenarioCheck.check(early, against: model)?.key == .ranWhileHeld, "registration ran while the source was inactive")
            let zeroed = ScenarioModel(
                Scenario(
                    queues: [.init(kind: .serial)],
                    steps: [
                        .source(
                            source: 0, queue: 0, merge: .replace, handler: .init(id: 0), registration: nil, cancelHandler: nil,
                            inactive: true),
                        .merge(source: 0, value: 5), .merge(source: 0, value: 0),
                    ]))
            #expect(zeroed.blocks[0]?.runs == .never, "replaced by zero before it could deliver: nothing to deliver")
            let replaced = ScenarioModel(
                Scenario(
                    queues: [.init(kind: .serial)],
                    steps: [
                        .source(
                            source: 0, queue: 0, merge: .replace, handler: .init(id: 0), registration: nil, cancelHandler: nil,
                            inactive: false),
                        .merge(source: 0, value: 5), .merge(source: 0, value: 0),
                    ]))
            #expect(replaced.blocks[0]?.runs == .anyTimes && replaced.sources[0]?.exact == false, "5 may have been delivered first")
        }

        @Test(
            "finalizers: once the run lets the queues go, each runs on its queue's target after the queue's blocks, given the context; without one, never"
        )
        func finalizers() {
            let queues: [Scenario.QueueSpec] = [.init(kind: .serial, specific: 7), .init(kind: .serial, target: 0)]
            let model = ScenarioModel(
                Scenario(
                    queues: queues,
                    steps: [
                        .setContext(queue: 1, value: 101), .setFinalizer(queue: 1, block: 5), .async(queue: 1, .init(id: 0)),
                        .setFinalizer(queue: 0, block: 6),
                    ]))
            #expect(model.finalizers[1]?.context == 101 && model.finalizers[0]?.context == nil)
            #expect(model.blocks[5]?.specifics == [7] && model.blocks[6]?.runs == .never)
            let run = [
                Self.e(.mark, 0), Self.e(.returned, 0), Self.e(.mark, 1), Self.e(.returned, 1), Self.e(.mark, 2), Self.e(.returned, 2),
                Self.e(.mark, 3), Self.e(.returned, 3), Self.e(.start, 0, 7), Self.e(.end, 0),
            ]
            let good = run + [Self.e(.start, 5, 7), Self.e(.data, 5, 101), Self.e(.end, 5)]
            #expect(ScenarioCheck.check(good, against: model) == nil)
            let early = Array(run[0...8]) + [Self.e(.start, 5, 7), Self.e(.data, 5, 101), Self.e(.end, 5), Self.e(.end, 0)]
            #expect(ScenarioCheck.check(early, against: model) != nil)
            let wrongContext = run + [Self.e(.start, 5, 7), Self.e(.data, 5, 100), Self.e(.end, 5)]
            #expect(ScenarioCheck.check(wrongContext, against: model)?.key == .wrongValue)
            let withoutContext = good + [Self.e(.start, 6, -1), Self.e(.data, 6, -1), Self.e(.end, 6)]
            #expect(ScenarioCheck.check(withoutContext, against: model)?.key == .extra)
        }

        @Test("dispatch data: each step's bytes, from bytes, appends, subranges (clamped) and contiguous copies, checked by checksum")
        func data() {
            let model = ScenarioModel(
                Scenario(
                    queues: [.init(kind: .serial)],
                    steps: [
                        .data(0, .bytes(first: 250, count: 8)), .data(1, .subdata(0, lower: 2, upper: 70)), .data(2, .append(1, 0)),
                        .data(3, .subdata(2, lower: 1, upper: 3)), .data(4, .contiguous(3)),
                    ]))
            #expect(model.datas[1] == [252, 253, 254, 255, 0, 1])
            #expect(model.datas[3] == [253, 254] && model.datas[4] == [253, 254])
            #expect(ScenarioModel.checksum([1, 2]) != ScenarioModel.checksum([2, 1]) && ScenarioModel.checksum([]) >= 0)
            var trace: [ScenarioEvent] = []
            for step in 0..<5 { trace += [Self.e(.mark, step), Self.e(.returned, step, ScenarioModel.checksum(model.datas[step]!))] }
            #expect(ScenarioCheck.check(trace, against: model) == nil)
            trace[7] = Self.e(.returned, 3, ScenarioModel.checksum([254, 253]))
            #expect(ScenarioCheck.check(trace, against: model)?.key == .wrongValue)
        }

        @Test(
            "classes of service: a block runs at its chain root's class (its own, or its global queue's), default without; a sync's block at its caller's"
        )
        func classes() {
            let queues: [Scenario.QueueSpec] = [
                .init(kind: .serial, qos: .utility), .init(kind: .serial, target: 0), .init(kind: .concurrent, globalClass: .background),
                .init(kind: .serial, target: 1, qos: .userInitiated),
            ]
            let synced = ScenarioModel(Scenario(queues: queues, steps: [.sync(queue: 0, .init(id: 2)), .async(queue: 3, .init(id: 3))]))
            #expect(synced.blocks[2]?.qos == nil && synced.blocks[3]?.qos == nil, "a sync's block, a class below the root")
            let model = ScenarioModel(Scenario(queues: queues, steps: [.async(queue: 1, .init(id: 0)), .async(queue: 2, .init(id: 1))]))
            #expect(model.blocks[0]?.qos == .utility && model.blocks[1]?.qos == .background)
            let ran = [
                Self.e(.mark, 0), Self.e(.returned, 0), Self.e(.mark, 1), Self.e(.returned, 1), Self.e(.start, 0, -1),
                Self.e(.qos, 0, Int64(QoSClass.utility.rank)), Self.e(.end, 0), Self.e(.start, 1, -1),
                Self.e(.qos, 1, Int64(QoSClass.background.rank)), Self.e(.end, 1),
            ]
            #expect(ScenarioCheck.check(ran, against: model) == nil)
            var wrong = ran
            wrong[5] = Self.e(.qos, 0, Int64(QoSClass.default.rank))
            #expect(ScenarioCheck.check(wrong, against: model)?.key == .wrongValue)
        }

        @Test("the reach of programs: every call counted once per program by operation and place, none the model forbids")
        func reach() {
            let queues: [Scenario.QueueSpec] = [.init(kind: .concurrent), .init(kind: .serial, target: 0)]
            var reach = ScenarioReach()
            reach.add(
                ScenarioModel(
                    Scenario(
                        queues: queues, counters: 1,
                        steps: [
                            .async(queue: 1, .init(id: 0, actions: [.signal(0)])), .async(queue: 1, .init(id: 1)),
                            .within(.block(queue: 0, barrier: false), host: 2, .async(queue: 0, .init(id: 3))),
                            .within(.block(queue: 1, barrier: false), host: 4, .async(queue: 0, .init(id: 5))),
                            .within(.handler(.cancel, queue: 1), host: 6, .suspend(1)),
                        ])))
            #expect(reach.programs == 1)
            #expect(reach.calls[.init(operation: .async, place: .thread)] == 1, "two calls, one program")
            #expect(reach.calls[.init(operation: .async, place: .sameQueue)] == 1)
            #expect(reach.calls[.init(operation: .async, place: .sameChain)] == 1)
            #expect(reach.calls[.init(operation: .semaphoreSignal, place: .otherQueue)] == 1)
            #expect(reach.calls[.init(operation: .suspend, place: .cancelHandler)] == 1)
            #expect(reach.states[.init(operation: .async, state: .targeted)] == 1)
            #expect(reach.states[.init(operation: .suspend, state: .running)] == 1)
            let allowed = Set(ScenarioReach.allowedCalls)
            #expect(!allowed.contains(.init(operation: .barrierSync, place: .sameQueue)))
            #expect(!allowed.contains(.init(operation: .apply, place: .sameQueue)), "apply has no queue of its own")
            let generated = ScenarioReach(Self.generator, from: 1, count: 100)
            let forbidden = generated.calls.keys.filter { !allowed.contains($0) }.map {
                "\($0.operation.rawValue) from \($0.place.rawValue)"
            }
            #expect(forbidden.isEmpty, "programs made calls the model forbids: \(forbidden.sorted())")
        }

        @Test("the shrinker finds the two steps a failure needs, within its budget")
        func shrinker() {
            var calls = 0
            let result = ScenarioShrinker().shrink(Array(0..<20)) { kept in
                calls += 1
                return kept.contains(3) && kept.contains(17)
            }
            #expect(result.kept == [3, 17])
            #expect(result.tries == calls && calls <= 150)
            let bounded = ScenarioShrinker(budget: 5).shrink(Array(0..<20)) { _ in false }
            #expect(bounded.tries == 5 && bounded.kept.count == 20)
        }

        @Test("generated programs agree with the model on the home engines, in this process", arguments: ["system", "lockfree"])
        func enginesAgree(_ name: String) throws {
            func run<E: Engine>(_ engine: E) -> [String] {
                let generator = ScenarioGenerator(features: .init(engine.capabilities))
                return (UInt64(1000)..<1040).compactMap { seed in
                    ScenarioRun.run(ScenarioModel(generator.scenario(seed: seed)), on: engine).map { "seed \(seed): \($0)" }
                }
            }
            let failures = name == "system" ? run(SystemEngine()) : run(LockFreeEngine())
            #expect(failures.isEmpty, "\(failures)")
        }

        @Test(
            "explore: bad input is one line and exit 64",
            arguments: [
                ["explore", "--seed", "soon"], ["explore", "--seed", "-3"], ["explore", "--budget", "0"], ["explore", "--budget", "-5"],
                ["explore", "--replay", "12@3,1"], ["explore", "--replay", "x"], ["explore", "--engine", "nope"],
                ["explore", "--repeat", "0"], ["explore", "--timeout", "0"],
            ])
        func usage(_ arguments: [String]) throws {
            ArenaExecutable.expectUsageError(try ArenaExecutable.run(arguments), arguments)
        }

        @Test("explore finds a mutant's fault, shrinks it, and the printed token replays the disagreement")
        func findsAndReplays() throws {
            let run = try ArenaExecutable.run(["explore", "--engine", "mutant-specificLeaks", "--seed", "1", "--budget", "50"])
            #expect(run.status == 1, "\(run.output)\(run.errors)")
            let line = run.output.split(separator: "\n").first { $0.contains("replay:") }
            let token = try #require(line?.split(separator: " ").drop { $0 != "--replay" }.dropFirst().first.map(String.init))
            #expect(token.contains("@"), "not shrunk: \(run.output)")
            let replay = try ArenaExecutable.run(["explore", "--engine", "mutant-specificLeaks", "--replay", token, "--repeat", "10"])
            #expect(replay.status == 1 && replay.output.contains("disagrees in run"), "\(replay.output)\(replay.errors)")
            let reference = try ArenaExecutable.run(["explore", "--engine", "system", "--replay", token, "--repeat", "3"])
            #expect(reference.status == 0, "\(reference.output)\(reference.errors)")
        }
    }
}
