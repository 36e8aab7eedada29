import ArenaContract

/// What the generated executor programs reach: each context entered from each context (an actor's job from the
/// script, from a task preferring the pool, from another job: a hop, or from a job of the same actor: no hop; …),
/// counted over a run of seeds.
public struct ExecutorReach: Sendable {
    /// Every pair a program for a layer like the generator's can make: "context in context".
    public let possible: [String]
    /// How many of the programs made each pair.
    public let programs: [String: Int]

    public init(_ generator: ExecutorGenerator, from first: UInt64, count: Int) {
        let features = generator.features
        var possible: [String] = []
        let outer =
            ["the script", "a pool task"] + (features.serialExecutors ? ["a job"] : [])
            + (features.colocated ? ["a co-located task"] : [])
        for parent in outer {
            let preference = parent == "the script" || parent == "a pool task"
            possible.append("a probe in \(parent)")
            if features.serialExecutors { possible.append("a job in \(parent)") }
            if parent == "a job" { possible.append("a job of the same actor in a job") }
            if preference {
                possible.append("a pool task in \(parent)")
                if features.colocated { possible.append("a co-located task in \(parent)") }
                if features.serialExecutors { possible.append("a plain block on a serial queue in \(parent)") }
                possible.append("a plain block on the global queue in \(parent)")
            }
            if parent == "a job" { possible.append("a task behind the job in a job") }
        }
        self.possible = possible
        var programs: [String: Int] = [:]
        for seed in 0..<UInt64(count) {
            var made: Set<String> = []
            func walk(_ steps: [ExecutorProgram.Step], in parent: String, executor: Int?) {
                for step in steps {
                    switch step {
                    case .probe: made.insert("a probe in \(parent)")
                    case .job(let index, let inner):
                        made.insert(parent == "a job" && executor == index ? "a job of the same actor in a job" : "a job in \(parent)")
                        walk(inner, in: "a job", executor: index)
                    case .pool(let inner):
                        made.insert("a pool task in \(parent)")
                        walk(inner, in: "a pool task", executor: nil)
                    case .colocated(let index, let inner):
                        made.insert("a co-located task in \(parent)")
                        walk(inner, in: "a co-located task", executor: index)
                    case .block: made.insert("a plain block on a serial queue in \(parent)")
                    case .plain: made.insert("a plain block on the global queue in \(parent)")
                    case .behind: made.insert("a task behind the job in \(parent)")
                    }
                }
            }
            walk(generator.program(seed: first &+ seed).steps, in: "the script", executor: nil)
            for pair in made { programs[pair, default: 0] += 1 }
        }
        self.programs = programs
    }

    /// The possible pairs at least one program made.
    public var reached: [String] { possible.filter { programs[$0, default: 0] > 0 } }
}
