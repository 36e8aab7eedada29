import Bench

// MARK: The target

extension ServerLoadRecord {
    /// What one endpoint says of the target: the best engine the arena installed (a variant other than Swift's
    /// default executor and NIO's takeover, by median requests per second) serves at least as many requests per second
    /// as each of those two, at a median p99 no worse than theirs.
    public struct Target: Sendable, Equatable {
        public var endpoint: String
        /// The best engine's figures; `nil` when no engine the arena installed has a number there.
        public var best: Served?
        /// Swift's default executor's and NIO's takeover's figures, those the rounds had.
        public var rivals: [Served]
        /// Why the target is not met, one clause each; empty when it is.
        public var shortfalls: [String]

        /// Whether the target holds at this endpoint.
        public var holds: Bool { best != nil && !rivals.isEmpty && shortfalls.isEmpty }
    }

    /// The target at `endpoint`.
    public func target(at endpoint: String) -> Target {
        let served = served(at: endpoint).filter { $0.requestsPerSecond != nil && $0.clean == $0.runs }
        let rivals = served.filter { $0.variant == Self.reference || $0.variant == Self.nioTakeover }
        let best = served.filter { !rivals.map(\.variant).contains($0.variant) }.max { $0.requestsPerSecond! < $1.requestsPerSecond! }
        var shortfalls: [String] = []
        if let best {
            for rival in rivals {
                if best.requestsPerSecond! < rival.requestsPerSecond! {
                    shortfalls.append("fewer requests per second than \(rival.variant)")
                }
                if let mine = best.p99, let theirs = rival.p99, mine > theirs { shortfalls.append("a worse p99 than \(rival.variant)") }
            }
        } else {
            shortfalls.append("no engine the arena installed has a number")
        }
        if rivals.isEmpty { shortfalls.append("neither Swift's default executor nor NIO's takeover has a number") }
        return Target(endpoint: endpoint, best: best, rivals: rivals, shortfalls: shortfalls)
    }

    // MARK: Markdown

    /// `18052 req/s at p99 2.80 ms`.
    static func text(_ served: Served) -> String {
        "\(served.requestsPerSecond.map { Bench.Figures.fixed($0, 0) } ?? "-") req/s at p99 \(served.p99.map { Bench.Figures.fixed($0, 2) } ?? "-") ms"
    }

    /// The target at `endpoint` in one sentence: who is best, against whom, held or not and why.
    public func targetSentence(at endpoint: String) -> String {
        let target = target(at: endpoint)
        let against = target.rivals.map { "\($0.variant) \(Self.text($0))" }.joined(separator: ", ")
        let best = target.best.map { "the best engine the arena installed, \($0.variant), serves \(Self.text($0))" } ?? "no engine"
        return "GET /\(endpoint): \(best)"
            + (against.isEmpty ? "" : "; \(against)")
            + (target.holds ? ": the target holds." : ": the target is not met (\(target.shortfalls.joined(separator: "; "))).")
    }

    /// The summary's paragraph: the target at every endpoint (medians over the clean runs).
    public func summaryParagraph() -> String {
        "**The server** (the workload `server`; target: the best engine the arena installs as Swift's global executor serves "
            + "at least the requests per second of Swift's default executor and of NIO's takeover, at a p99 no worse; "
            + "medians over \(rounds) rounds): " + endpoints.map(targetSentence(at:)).joined(separator: " ") + "\n\n"
    }

    /// The number of rounds.
    public var rounds: Int { runs.map(\.round).max() ?? 0 }

    /// The latency table: a row per endpoint and variant, with the medians over the clean runs of requests per
    /// second, p50 and p99, the range of requests per second, and the runs other processes contended (0.3 cores or
    /// more).
    public func latencyTable() -> String {
        var text = "| endpoint | variant | clean runs | req/s (median) | req/s (min–max) | p50 ms | p99 ms | contended runs |\n"
        text += "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
        for endpoint in endpoints {
            for served in served(at: endpoint) where served.runs > 0 {
                let contended = runs.filter { $0.endpoint == endpoint && $0.variant == served.variant && ($0.othersCores ?? 0) >= 0.3 }
                let range = served.range.map { "\(Bench.Figures.fixed($0.lowerBound, 0))–\(Bench.Figures.fixed($0.upperBound, 0))" }
                text +=
                    "| /\(endpoint) | \(served.variant) | \(served.clean) of \(served.runs) | "
                    + "\(served.requestsPerSecond.map { Bench.Figures.fixed($0, 0) } ?? "-") | \(range ?? "-") | "
                    + "\(served.p50.map { Bench.Figures.fixed($0, 3) } ?? "-") | \(served.p99.map { Bench.Figures.fixed($0, 3) } ?? "-") | "
                    + "\(contended.count) |\n"
            }
        }
        return text
    }

    /// What report.md adds to the workload's section: where it ran, the latencies, and the target per endpoint.
    public func markdownDetails() -> String {
        "Measured on \(load.host) (\(load.cores) cores) from \(load.date.prefix(10)), \(rounds) rounds, the variants of a "
            + "round one after another in an order that turns by one each round. Latencies are wrk's, in milliseconds, "
            + "medians over the clean runs:\n\n" + latencyAndTargets() + "\n"
    }

    /// The latency table, then the target at each endpoint as a list (docs/BENCHMARKS.md's block `reference.server`).
    public func latencyAndTargets() -> String {
        latencyTable() + "\n" + endpoints.map { "- " + targetSentence(at: $0) + "\n" }.joined()
    }
}

extension ServerLoadRecord {
    /// What report.md says under Benchmarks when the folder has no server load: how to make one, and why the quick
    /// report leaves it out.
    public static let absentNote =
        "### server\n\nNot measured for this folder: `scripts/report.sh --full` loads Examples/HummingbirdServer's "
        + "`arena-server` with wrk on each engine and joins it (`arena report DIR --server ROUNDS`). The quick report leaves "
        + "it out: the server is a package of its own (Hummingbird 2 and SwiftNIO), built with the toolchain the quick "
        + "report's bundle does without, and its rounds alone take 10 s per variant, endpoint and round (5 variants at 2 "
        + "endpoints in 3 rounds: 5 minutes, the quick report's whole time).\n\n"
}
