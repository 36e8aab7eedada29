import Conformance
import Testing

extension ArenaTests {
    /// The state matrix of docs/RULES.md (issue 39): every rule it names is in the catalog, every cell has rules or a
    /// reason and never both, and every table keeps the rows and columns the issue lists, so none is dropped silently.
    @Suite
    struct StateMatrixTests {
        let matrix = StateMatrix.builtIn

        /// The tables' rows and columns, as issue 39 lists them.
        static let expected: [(id: String, rows: [String], columns: [String])] = [
            (
                "a",
                [
                    "queue: target", "queue: activation", "queue: suspension", "queue: QoS", "queue: specific values",
                    "source: handlers", "source: activation", "source: cancellation", "timer: schedule", "timer: leeway",
                    "operation queue: width", "operation queue: suspension", "operation queue: underlying queue",
                    "operation: priority", "operation: dependencies", "executor: jobs",
                ],
                ["before activation", "while work waits", "while a block runs", "after cancel or finish"]
            ),
            (
                "b",
                [
                    "serial queue", "concurrent queue", "global queue", "main queue", "source",
                    "operation queue (on an underlying queue)",
                ],
                ["leaf, active", "leaf, inactive", "middle, active", "middle, inactive", "root, active", "root, inactive"]
            ),
            (
                "c",
                [
                    "async", "sync", "barrierAsync", "barrierSync", "asyncAfter", "apply", "group wait", "semaphore wait",
                    "work item wait", "operation wait (waitUntilFinished, waitUntilAllOperationsAreFinished)", "suspend, resume",
                    "currentSpecific",
                ],
                [
                    "plain thread", "block of the same queue", "block of a queue targeting it", "block of an unrelated queue",
                    "executor job", "nested sync",
                ]
            ),
            (
                "d",
                [
                    "asyncAfter deadline", "group wait deadline", "semaphore wait deadline", "work item wait deadline",
                    "timer start deadline", "operation wait deadline", "apply iterations", "semaphore value",
                    "maxConcurrentOperationCount", "source merge value", "data range length", "group (its members)", "data buffer",
                    "operation queue (its operations)", "queue target", "queue class", "specific value", "queue context",
                    "source handler", "underlyingQueue", "timer repeat interval", "timer leeway",
                ],
                ["deadline past", "deadline now", "deadline far", "zero", "one", "empty", "nil", "repeating with leeway"]
            ),
        ]

        @Test("every rule id in the matrix is a rule of the catalog")
        func rulesExist() {
            let known = Set(Catalog.builtIn.rules.map(\.id))
            #expect(!matrix.ruleIDs.isEmpty)
            for id in matrix.ruleIDs.sorted() { #expect(known.contains(id), "the matrix names '\(id)', which the catalog lacks") }
        }

        @Test("a misuse reason names a misuse rule of the catalog")
        func misuseReasonsNameMisuseRules() throws {
            for table in matrix.tables {
                for row in table.rows {
                    for cell in row.cells {
                        guard case .misuse(let id, _) = cell.reason else { continue }
                        let rule = try #require(Catalog.builtIn.rule(id: id), "(\(table.id)) \(row.name): no rule '\(id)'")
                        #expect(rule.isMisuse, "(\(table.id)) \(row.name): '\(id)' is given as misuse, but it is a behaviour rule")
                    }
                }
            }
        }

        @Test("every cell has at least one rule or a non-empty reason, and never both")
        func cellsFilled() {
            for table in matrix.tables {
                for row in table.rows {
                    #expect(row.cells.count == table.columns.count, "(\(table.id)) \(row.name): \(row.cells.count) cells")
                    for (column, cell) in zip(table.columns, row.cells) {
                        let place = "(\(table.id)) \(row.name) × \(column)"
                        #expect(!cell.rules.isEmpty || cell.reason != nil, "\(place): neither rules nor a reason")
                        #expect(cell.rules.isEmpty || cell.reason == nil, "\(place): both rules and a reason")
                        if let reason = cell.reason {
                            switch reason {
                            case .scenarios: break
                            case .misuse(let rule, let text): #expect(!rule.isEmpty && !text.isEmpty, "\(place): an empty misuse reason")
                            case .notAllowed(let text), .notApplicable(let text), .missingOnLinux(_, let text), .gap(let text):
                                let blank = text.allSatisfy { $0.isWhitespace }
                                #expect(!blank, "\(place): an empty \(reason.kind) reason")
                            }
                        }
                        if let note = cell.note { #expect(!cell.rules.isEmpty && !note.isEmpty, "\(place): a note without rules") }
                        #expect(Set(cell.rules).count == cell.rules.count, "\(place): a rule named twice")
                    }
                }
            }
        }

        @Test("each table's rows and columns are the ones issue 39 lists")
        func rowsAndColumns() {
            #expect(matrix.tables.map(\.id) == Self.expected.map(\.id))
            for (table, expected) in zip(matrix.tables, Self.expected) {
                #expect(table.rows.map(\.name) == expected.rows, "table (\(table.id)) rows")
                #expect(table.columns == expected.columns, "table (\(table.id)) columns")
            }
        }

        @Test("docs/RULES.md's state matrix section shows every table, row and reason")
        func rendered() throws {
            let markdown = CatalogReport.markdown()
            let start = try #require(markdown.range(of: "\n## State matrix\n"))
            let section = markdown[start.upperBound...]
            for table in matrix.tables {
                #expect(section.contains("### (\(table.id)) \(table.title)"))
                for row in table.rows { #expect(section.contains("\n| \(row.name) | "), "(\(table.id)) \(row.name) missing") }
                for reason in table.rows.flatMap(\.cells).compactMap(\.reason) where reason != .scenarios {
                    #expect(section.contains(reason.text), "(\(table.id)) reason not shown: \(reason.text)")
                }
            }
        }
    }
}
