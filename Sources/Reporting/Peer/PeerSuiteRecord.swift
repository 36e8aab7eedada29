import Bench
import Foundation

/// A peer's own test suite run with each contender as Swift's global executor (`scripts/peer-suite.sh`, whose
/// `summary.json` `arena report DIR --peer-suite FILE` joins to the run record): swift-async-algorithms' suite, test
/// by test, per variant (a contender under `arena exec`, Swift's default executor, NIO's takeover), and the tests that
/// fail on a variant but pass on the reference. report.md shows it, and docs/EXECUTORS.md's table is made from the
/// committed reference run's (`arena docs`, block `peer.table`).
public struct PeerSuiteRecord: Codable, Sendable, Equatable {
    /// How the suite was built and run.
    public struct Build: Codable, Sendable, Equatable {
        /// The peer's tag (`1.1.4`).
        public var tag: String?
        /// `debug` or `release`.
        public var config: String?
        /// `suite` (one process for the whole suite) or `test` (one per test).
        public var isolate: String?
    }

    /// One variant's counts: tests passed, failed, skipped, started and not finished (the process timed out or
    /// crashed), not run.
    public struct Variant: Codable, Sendable, Equatable {
        public var variant: String
        public var prefix: String
        public var passed: Int
        public var failed: Int
        public var skipped: Int
        public var unfinished: Int
        public var notRun: Int
        public var seconds: Double
    }

    /// A test that passed on the reference and did not on a variant.
    public struct Regression: Codable, Sendable, Equatable {
        public var test: String
        /// `failed`, `unfinished` or `not run`.
        public var status: String
    }

    public var build: Build
    /// The variant the others are compared with (Swift's default executor).
    public var reference: String
    public var variants: [Variant]
    /// By variant.
    public var regressions: [String: [Regression]]

    /// The suite's name as the report and docs give it.
    public var title: String { build.tag.map { "swift-async-algorithms \($0)'s test suite" } ?? "swift-async-algorithms' test suite" }

    /// The summary `scripts/peer-suite.sh` wrote to `path`; throws naming what is wrong with it.
    public static func read(_ path: String) throws -> PeerSuiteRecord {
        guard let text = Files.read(path) else { throw PeerSuiteError(description: "cannot read '\(path)'") }
        do { return try JSONDecoder().decode(PeerSuiteRecord.self, from: Data(text.utf8)) } catch {
            throw PeerSuiteError(description: "'\(path)' is not a summary.json of scripts/peer-suite.sh: \(RunRecord.describe(error))")
        }
    }

    /// A table, a row per variant, with the tests that regressed against the reference named in the last column.
    public func markdownTable() -> String {
        var text = "| variant | passed | failed | unfinished | not run | regressions against `\(reference)` |\n"
        text += "| --- | ---: | ---: | ---: | ---: | --- |\n"
        for variant in variants {
            let regressed = (regressions[variant.variant] ?? []).map { "`\($0.test)` (\($0.status))" }
            text +=
                "| `\(variant.variant)` | \(variant.passed) | \(variant.failed) | \(variant.unfinished) | \(variant.notRun) | "
                + (variant.variant == reference ? "(the reference)" : regressed.isEmpty ? "none" : regressed.joined(separator: ", "))
                + " |\n"
        }
        return text
    }

    /// report.md's section body: what ran, and the table.
    public func markdownSection() -> String {
        "\(title), unmodified, \(build.config ?? "debug") build, "
            + (build.isolate == "test" ? "one process per test" : "one process for the whole suite")
            + "; each variant's program runs under its prefix (`arena exec --engine NAME --` for a contender):\n\n"
            + markdownTable()
    }
}

/// Why a peer suite's summary could not be read, in one line.
public struct PeerSuiteError: Error, CustomStringConvertible {
    public let description: String
}
