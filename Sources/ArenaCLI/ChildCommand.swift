import ArenaContract
import ArgumentParser
import Bench
import Conformance
import Glibc
import Harness

/// The one hidden child command: `arena child --request JSON`. The parent starts this same program again with a
/// request in its envelope (`ChildRequests`): a rule's runs (`RuleRequest`), one contender's session at a benchmark point
/// (`TrialRequest`, a conversation with its parent: `TrialChild`) or an
/// instruction path (`PathRequest`). The child finds the contender the request names and hands the request to the
/// code compiled for that engine's type; a deadlocked or crashing engine takes down this process, never the run. A rule
/// request may also name a mutant (`Contender.mutant(named:)`), for `arena explain`; so may a request for generated
/// scenarios (`ScenarioRequest`, `arena explore`). A trial request whose point its
/// workload does not declare under the request's settings (`TrialChild.check`) is a usage error, one line and exit 64,
/// before anything is measured; the parent's point gets that line as its error.
struct ChildCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: ChildRequests.command,
        abstract: "Run one request in this process (used by 'arena conform', 'bench' and 'instructions').",
        shouldDisplay: false)

    @Option(name: .customLong(String(ChildRequests.option.dropFirst(2))), help: "The request, in its JSON envelope.")
    var request: String

    /// The request kinds this command runs.
    static let kinds = [RuleRequest.kind, ScenarioRequest.kind, TrialRequest.kind, PathRequest.kind]

    func validate() throws { _ = try Self.kind(of: request) }

    func run(on lineup: Lineup) throws { try Self.run(request: request, on: lineup) }

    /// The request when `arguments` (the process's, less the program) are exactly a child's (`child --request JSON`),
    /// which `ArenaCommand.start` then runs without parsing; `nil` for any other command line, left to the parser.
    static func request(in arguments: ArraySlice<String>) -> String? {
        guard arguments.count == 3, arguments.first == ChildRequests.command,
            arguments.dropFirst().first == ChildRequests.option
        else { return nil }
        return arguments.last
    }

    /// The request's kind, one this command runs; a `ValidationError` otherwise.
    private static func kind(of request: String) throws -> String {
        guard let kind = ChildRequests.kind(of: request) else { throw ValidationError("--request is not a child request") }
        guard kinds.contains(kind) else { throw ValidationError("--request: unknown kind '\(kind)'") }
        return kind
    }

    /// Validates `request` and runs it on `lineup`; a `ValidationError` for a request that cannot run.
    static func run(request: String, on lineup: Lineup) throws {
        switch try kind(of: request) {
        case RuleRequest.kind:
            let rule = try Self.decode(RuleRequest.self, from: request)
            // A rule may run on a mutant too (`arena explain`), found by name: no lineup lists one.
            let contender = try Self.contender(rule.engine, in: lineup, orMutant: true)
            guard let chosen = lineup.catalog.rule(id: rule.rule) else { throw ValidationError("unknown rule '\(rule.rule)'") }
            contender.conform(rule, rule: chosen)
        case ScenarioRequest.kind:
            let scenarios = try Self.decode(ScenarioRequest.self, from: request)
            try Self.contender(scenarios.engine, in: lineup, orMutant: true).explore(scenarios)
        case TrialRequest.kind:
            let trials = try Self.decode(TrialRequest.self, from: request)
            let contender = try Self.contender(trials.engine, in: lineup)
            // A point its workload does not declare is one line and exit 64, never a measurement of a default branch.
            do { try TrialChild.check(trials, among: lineup.workloads) } catch {
                throw ValidationError("point request: \(error.message)")
            }
            TrialChild.main(trials, session: contender.measurings.session)
        default:
            let path = try Self.decode(PathRequest.self, from: request)
            let contender = try Self.contender(path.engine, in: lineup)
            do {
                // Generous: under callgrind the slowest path runs some seconds; the parent stops a child that hangs.
                try contender.run(path.path, operations: path.operations, until: .now() + path.limit)
            } catch {
                writeError("\(Program.name): \(path.path.rawValue) on \(path.engine): \(error)")
                _exit(1)
            }
            // At once: the engine's threads need no teardown, and whatever one would cost is the same in both runs.
            _exit(0)
        }
    }

    private static func decode<Request: ChildRequest>(_ type: Request.Type, from text: String) throws -> Request {
        guard let request = ChildRequests.decode(type, from: text) else {
            throw ValidationError("--request does not decode as a \(Request.kind) request")
        }
        return request
    }

    private static func contender(_ name: String, in lineup: Lineup, orMutant: Bool = false) throws -> Contender {
        guard let contender = lineup.contender(named: name) ?? (orMutant ? Contender.mutant(named: name) : nil) else {
            throw ValidationError("unknown engine '\(name)'")
        }
        return contender
    }
}
