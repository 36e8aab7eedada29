import Conformance
import Mutants
import Testing

extension ArenaTests {
    /// `arena explain RULE`: the rule's statement, source and forbidden outcomes, and a live run on the reference and on
    /// a mutant that breaks it, each in a child process.
    @Suite
    struct ExplainCLITests {
        @Test("explain runs the rule on the reference, which passes, and on a mutant, which fails")
        func live() throws {
            let run = try ArenaExecutable.run(["explain", "group.notify-after-all"])
            #expect(run.status == 0, "exit \(run.status): \(run.output) \(run.errors)")
            let lines = run.output.split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix("  system (the reference): pass") }, "\(run.output)")
            let mutant = "  \(Mutants.name(of: .groupNotifiesEarly)) ("
            #expect(lines.contains { $0.hasPrefix(mutant) && $0.contains("): fail") }, "\(run.output)")
            // The failure's outcome key is one the rule forbids.
            #expect(lines.contains { $0.hasPrefix("    early: ") }, "\(run.output)")
        }

        @Test("explain --no-run prints the statement, the source and the forbidden outcomes, and runs nothing")
        func noRun() throws {
            let rule = try #require(Catalog.builtIn.rule(id: "group.notify-after-all"))
            let run = try ArenaExecutable.run(["explain", rule.id, "--no-run"])
            #expect(run.status == 0 && run.errors.isEmpty, "exit \(run.status): \(run.errors)")
            #expect(run.output.hasPrefix("\(rule.id): \(rule.title)"), "\(run.output)")
            #expect(run.output.contains(rule.source), "\(run.output)")
            for outcome in rule.forbidden {
                #expect(run.output.contains("\(outcome): \(outcome.meaning ?? "")"), "\(outcome) missing: \(run.output)")
            }
            #expect(run.output.contains(Mutants.name(of: .notifyDuplicated)), "\(run.output)")
            #expect(!run.output.contains("Live:") && !run.output.contains(": pass"), "\(run.output)")
        }

        @Test("explain of an unknown rule, or with a bad timeout, is a usage error: one line on stderr, exit 64")
        func unknownRule() throws {
            let usageErrors = [
                ["explain", "no.such-rule"], ["explain", "no.such-rule", "--no-run"], ["explain"],
                ["explain", "group.wait", "--timeout", "0"],
            ]
            for arguments in usageErrors {
                ArenaExecutable.expectUsageError(try ArenaExecutable.run(arguments), arguments)
            }
        }

        @Test("a reference that lacks the rule's capability is skipped with a line saying why; the mutant still runs")
        func referenceSkipped() throws {
            let run = try ArenaExecutable.run(["explain", "proc.exit"])
            #expect(run.status == 0, "exit \(run.status): \(run.output) \(run.errors)")
            #expect(run.output.contains("  system (the reference): not run: it needs process-sources"), "\(run.output)")
            #expect(run.output.contains("\(Mutants.name(of: .exitReportedTwice)) ("), "\(run.output)")
        }

        @Test("mutants are reachable by name for explain only: list and conform do not know them")
        func mutantsHidden() throws {
            let list = try ArenaExecutable.run(["list", "--engines"])
            #expect(list.status == 0 && !list.output.contains(Mutants.prefix), "\(list.output)")
            let arguments = ["conform", "--engine", Mutants.name(of: .groupNotifiesEarly), "--rule", "group.notify-after-all"]
            ArenaExecutable.expectUsageError(try ArenaExecutable.run(arguments), arguments)
        }

        @Test("every outcome a rule of the catalog forbids has a meaning for explain to print")
        func outcomesHaveMeanings() {
            for rule in Catalog.builtIn.rules {
                for outcome in rule.forbidden {
                    #expect(outcome.meaning != nil, "\(rule.id): '\(outcome)' has no meaning")
                }
            }
            for outcome in Outcome.universal { #expect(outcome.meaning != nil, "'\(outcome)' has no meaning") }
        }
    }
}
