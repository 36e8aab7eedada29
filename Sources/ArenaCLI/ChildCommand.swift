import ArenaContract
import ArgumentParser
import Bench
import Conformance
import Glibc
import Harness

/// The one hidden child command: `arena child --request JSON`. The parent starts this same program again with a
/// request in its envelope (`ChildRequests`): a rule's runs (`RuleRequest`), a benchmark point (`PointRequest`) or an
/// instruction path (`PathRequest`). The child finds the contender the request names and hands the request to the
/// code compiled for that engine's type; a deadlocked or crashing engine takes down this process, never the run.
struct ChildCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: ChildRequests.command,
        abstract: "Run one request in this process (used by 'arena conform', 'bench' and 'instructions').",
        shouldDisplay: false)

    @Option(name: .customLong(String(ChildRequests.option.dropFirst(2))), help: "The request, in its JSON envelope.")
    var request: String

    func validate() throws {
        guard let kind = ChildRequests.kind(of: request) else { throw ValidationError("--request is not a child request") }
        guard [RuleRequest.kind, PointRequest.kind, PathRequest.kind].contains(kind) else {
            throw ValidationError("--request: unknown kind '\(kind)'")
        }
    }

    func run(on lineup: Lineup) throws {
        if let rule = ChildRequests.decode(RuleRequest.self, from: request) {
            let contender = try Self.contender(rule.engine, in: lineup)
            guard let chosen = lineup.catalog.rule(id: rule.rule) else { throw ValidationError("unknown rule '\(rule.rule)'") }
            contender.conform(rule, rule: chosen)
        } else if let point = ChildRequests.decode(PointRequest.self, from: request) {
            BenchChild.main(point, measurings: lineup.contender(named: point.engine)?.measurings)
        } else if let path = ChildRequests.decode(PathRequest.self, from: request) {
            let contender = try Self.contender(path.engine, in: lineup)
            do {
                // Generous: under callgrind the slowest path runs some seconds; the parent stops a child that hangs.
                try contender.run(path.path, operations: path.operations, until: .now() + path.limit)
            } catch {
                writeError("arena: \(path.path.rawValue) on \(path.engine): \(error)")
                _exit(1)
            }
            // At once: the engine's threads need no teardown, and whatever one would cost is the same in both runs.
            _exit(0)
        } else {
            throw ValidationError("--request does not decode as its kind says")
        }
    }

    private static func contender(_ name: String, in lineup: Lineup) throws -> Contender {
        guard let contender = lineup.contender(named: name) else { throw ValidationError("unknown engine '\(name)'") }
        return contender
    }
}
