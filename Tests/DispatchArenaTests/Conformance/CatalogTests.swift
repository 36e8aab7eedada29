import ArenaCLI
import ArenaContract
import Bench
import Conformance
import Contenders
import Reporting
import Testing

extension ArenaTests {
    /// The whole catalog on every registered engine, each rule in a child process of its own.
    @Suite
    struct CatalogTests {
        @Test("behaviour rule", arguments: TestEngines.catalogEngines, TestEngines.behaviourRules)
        func behaviour(engine: String, rule: String) async throws {
            let result = try #require(await runIsolated(RuleRequest(engine: engine, rule: rule, repeats: 1, timeout: .seconds(10))))
            #expect(!result.status.isFailure, "\(engine) \(rule): \(result.status.rawValue): \(result.detail)")
        }

        @Test("operation rule, on every contender's operation layer", arguments: TestEngines.operationEngines, TestEngines.operationRules)
        func operation(engine: String, rule: String) async throws {
            let result = try #require(await runIsolated(RuleRequest(engine: engine, rule: rule, repeats: 1, timeout: .seconds(10))))
            #expect(!result.status.isFailure, "\(engine) \(rule): \(result.status.rawValue): \(result.detail)")
        }

        /// Every executor rule passes on every contender's executor layer, but for the serial-executor rules on a layer
        /// without serial executors (`swift`'s), which it reports unsupported.
        @Test("executor rule, on every contender's executor layer", arguments: TestEngines.executorEngines, TestEngines.executorRules)
        func executor(engine: String, rule: String) async throws {
            let result = try #require(await runIsolated(RuleRequest(engine: engine, rule: rule, repeats: 1, timeout: .seconds(10))))
            let lacking = TestEngines.lacks(engine, try #require(Catalog.builtIn.rule(id: rule)))
            #expect(result.status == (lacking ? .unsupported : .pass), "\(engine) \(rule): \(result.status.rawValue): \(result.detail)")
        }

        /// Every global-executor rule passes with each contender installed as Swift's global executor, in an `arena`
        /// child process (the hooks are process-wide, and the main-actor rule needs the process's first thread), but on
        /// a contender that cannot serve (unsupported) and where the contender documents the failure as its own
        /// (`Engine.deviations`: Swift's default executor and the deadline entry point, docs/FINDINGS.md §13), which
        /// must still fail, so that the finding is known to hold.
        @Test(
            "global-executor rule, each contender installed as the global executor", arguments: TestEngines.executorEngines,
            TestEngines.globalExecutorRules)
        func globalExecutor(engine: String, rule: String) async throws {
            let found = try #require(Catalog.builtIn.rule(id: rule))
            let contender = try #require(Contender.builtIn.first { $0.name == engine })
            let runner = ConformanceRunner(timeout: .seconds(10), launcher: ArenaChildLauncher())
            let result = await runner.run(found, on: contender.engine)
            let expected: Status =
                TestEngines.lacks(engine, found)
                ? .unsupported : contender.profile.deviations.finding(for: .rule(rule)) != nil ? .fail : .pass
            #expect(result.status == expected, "\(engine) \(rule): \(result.status.rawValue): \(result.detail)")
        }

        /// An actor's isolation assumed off its executor stops the process, on every layer with serial executors; a
        /// layer without them reports the rule unsupported before any child starts.
        @Test(
            "executor misuse is diagnosed, on every contender's executor layer", arguments: TestEngines.executorEngines,
            TestEngines.executorMisuseRules)
        func executorMisuse(engine: String, rule: String) async throws {
            let found = try #require(Catalog.builtIn.rule(id: rule))
            if TestEngines.lacks(engine, found) {
                let contender = try #require(TestEngines.named(engine))
                let result = await ConformanceRunner(launcher: ArenaChildLauncher()).run(found, on: contender)
                #expect(result.status == .unsupported, "\(engine) \(rule): \(result.status.rawValue): \(result.detail)")
                return
            }
            let run = try #require(await runMisuse(engine: engine, rule: rule, expecting: .failure))
            #expect(run.status == .pass, "\(engine) \(rule): \(run.detail)")
        }

        @Test("main-loop rule, in an arena child process", arguments: TestEngines.catalogEngines, TestEngines.mainLoopRules)
        func mainLoop(engine: String, rule: String) async throws {
            let contender = try #require(Contender.builtIn.first { $0.name == engine })
            let runner = ConformanceRunner(timeout: .seconds(10), launcher: ArenaChildLauncher())
            let result = await runner.run(try #require(Catalog.builtIn.rule(id: rule)), on: contender.engine)
            #expect(!result.status.isFailure, "\(engine) \(rule): \(result.status.rawValue): \(result.detail)")
        }

        @Test("misuse is diagnosed", arguments: TestEngines.catalogEngines, TestEngines.misuseRules)
        func misuse(engine: String, rule: String) async throws {
            let run = try #require(await runMisuse(engine: engine, rule: rule, expecting: .failure))
            #expect(run.status == .pass, "\(engine) \(rule): \(run.detail)")
        }
    }
}

extension ArenaTests {
    /// The rules' sources cite what a reader can find: documents by a key of `Bibliography`, never a file the
    /// project's authors alone had.
    @Suite
    struct CitationTests {
        @Test("no rule's source cites a seed file")
        func noSeedFiles() {
            for rule in Catalog.builtIn.rules {
                #expect(!rule.source.contains("seed "), "\(rule.id): \(rule.source)")
                #expect(rule.source.firstMatch(of: #/[0-9]{3}_[0-9a-f]{16}|\.txt\b/#) == nil, "\(rule.id): \(rule.source)")
            }
        }

        @Test("every bracketed citation in a rule's source is in the bibliography, and every document is cited")
        func citationsResolve() {
            let citations = Set(Bibliography.documents.map(\.citation))
            #expect(citations.count == Bibliography.documents.count, "two documents share a citation")
            var cited: Set<String> = []
            for rule in Catalog.builtIn.rules {
                for match in rule.source.matches(of: #/\[[^\[\]]*\]/#) {
                    #expect(citations.contains(String(match.output)), "\(rule.id) cites \(match.output), which Bibliography lacks")
                }
                cited.formUnion(citations.filter { rule.source.contains($0) })
            }
            #expect(cited == citations, "no rule cites \(citations.subtracting(cited).sorted())")
        }

        @Test("every document has a title, an author, a date, and an https address or none")
        func documentsComplete() {
            for document in Bibliography.documents {
                #expect(!document.title.isEmpty && !document.author.isEmpty && !document.date.isEmpty, "\(document.citation)")
                if let url = document.url { #expect(url.hasPrefix("https://"), "\(document.citation): \(url)") }
            }
        }

        @Test("docs/RULES.md opens with every document, before the rules")
        func markdownOpensWithBibliography() throws {
            let markdown = CatalogReport.markdown()
            let rulesHeading = try #require(markdown.range(of: "\n## Rules\n"))
            let opening = markdown[..<rulesHeading.lowerBound]
            for document in Bibliography.documents {
                let line = try #require(
                    opening.split(separator: "\n").first { $0.hasPrefix("- **\(document.citation)**") },
                    "no entry for \(document.citation)")
                for field in [document.author, document.title, document.date] + [document.url].compactMap({ $0 }) {
                    #expect(line.contains(field), "\(document.citation): '\(field)' missing from '\(line)'")
                }
            }
        }
    }
}
