import Conformance
import Foundation
import Harness
import Testing

/// The executor rules on `nio`, as `nio-arena conform --engine nio` runs them (a child process per rule, as a misuse rule
/// needs): every rule passes, but for the findings the README documents, which must fail as documented. A NIO that
/// fixes a finding fails this test too, so the README changes with it.
@Suite struct ExecutorRuleTests {
    /// The rules NIO 2.101 breaks (README, "Findings"), with words their failure must contain: the process dies on a
    /// trap (SIGILL) in NIO's precondition, whose message (a debug build's only; a release build prints nothing)
    /// names neither the actor nor the misuse.
    static let findings: [String: String] = [
        "executor.assume-isolated-off-queue": "unnamed: died (signal 4) without naming 'ExecutorProbe'",
        "executor.assume-isolated-other-queue": "unnamed: died (signal 4) without naming 'ExecutorProbe'",
    ]

    @Test("every executor rule passes on nio, but for the documented findings, which fail as documented")
    func executorRules() throws {
        let expected = Set(Catalog.builtIn.rules.filter { $0.concept == .executors }.map(\.id))
        let results = try NIOArena.conform(rules: ["executor.*"])
        #expect(Set(results.keys) == expected, "the rules conform ran")
        for (rule, result) in results.sorted(by: { $0.key < $1.key }) {
            if let evidence = Self.findings[rule] {
                #expect(result.status == "fail" && result.detail.contains(evidence), "\(rule): \(result.status) \(result.detail)")
            } else {
                #expect(result.status == "pass", "\(rule): \(result.status) \(result.detail)")
            }
        }
    }
}

/// `nio-arena`, the package's executable, run as a child (`ChildProcess`, killed past its limit).
enum NIOArena {
    struct Result: Decodable {
        let rule: String
        let status: String
        let detail: String?
    }

    /// Each rule's status and detail from one `nio-arena conform --engine nio` run over `rules` (patterns).
    static func conform(rules: [String]) throws -> [String: (status: String, detail: String)] {
        let binary = Bundle.main.bundleURL.appendingPathComponent("nio-arena").path
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw Problem("\(binary) is missing: build the package first") }
        let arguments = ["conform", "--engine", "nio", "--timeout", "10", "--format", "json"] + rules.flatMap { ["--rule", $0] }
        let outcome = ChildProcess.run(arguments, executable: binary, limit: .seconds(120))
        // conform exits 1 when a rule failed (the finding's do); anything else is no report.
        guard outcome.termination == .exited(0) || outcome.termination == .exited(1) else {
            throw Problem("nio-arena conform \(rules) ended \(outcome.termination): \(outcome.standardError)")
        }
        struct Report: Decodable { let results: [Result] }
        let report = try JSONDecoder().decode(Report.self, from: Data(outcome.standardOutput.utf8))
        return Dictionary(report.results.map { ($0.rule, ($0.status, $0.detail ?? "")) }, uniquingKeysWith: { $1 })
    }

    struct Problem: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
