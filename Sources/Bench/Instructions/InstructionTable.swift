import FoundationEssentials

/// The instructions and heap allocations per operation of every path on every engine, as `arena instructions` counted
/// them: written as
/// `instructions.json` and `instructions.md` into a results folder, and shown in its `report.md`. A plain value;
/// rendering it costs a pass over the counts.
public struct InstructionTable: Sendable, Codable, Equatable {
    /// The tool that counted, as it names itself (`valgrind-3.19.0`), with the options every run had.
    public let tool: String
    /// Whether every run had one CPU at `SCHED_FIFO` priority (`InstructionCounter.isolate`), which makes the counts
    /// repeat; without it (not root), counts where threads hand work over or workers spin vary by several percent.
    public let realTime: Bool
    /// The engines, in the order of the table's columns.
    public let engines: [String]
    /// The paths, in the order of the table's rows.
    public let paths: [InstructionPath]
    /// Warm-up operations before the counted ones, in every run.
    public let warmUp: Int
    /// One count per engine and path measured.
    public let counts: [InstructionCount]

    /// A table of `counts`. A plain value.
    public init(
        tool: String, realTime: Bool, engines: [String], paths: [InstructionPath], warmUp: Int,
        counts: [InstructionCount]
    ) {
        self.tool = tool
        self.realTime = realTime
        self.engines = engines
        self.paths = paths
        self.warmUp = warmUp
        self.counts = counts
    }

    enum CodingKeys: String, CodingKey {
        case tool, engines, paths, counts
        case warmUp = "warm_up"
        case realTime = "real_time"
    }

    /// The count of `path` on `engine`, if it was measured.
    public func count(_ path: InstructionPath, on engine: String) -> InstructionCount? {
        counts.first { $0.path == path && $0.engine == engine }
    }

    /// The counts that have no number, each with its reason.
    public var failures: [InstructionCount] { counts.filter { $0.perOperation == nil } }

    /// One cell: instructions per operation to one decimal, `error` or `-` (not measured).
    public func cell(_ path: InstructionPath, _ engine: String) -> String {
        guard let count = count(path, on: engine) else { return "-" }
        return count.perOperation.map { Figures.fixed($0, 1) } ?? "error"
    }

    /// One cell of the allocations: heap allocations per operation to two decimals, `error` or `-` (not measured,
    /// or counted before allocations were).
    public func allocationCell(_ path: InstructionPath, _ engine: String) -> String {
        guard let count = count(path, on: engine) else { return "-" }
        if count.failure != nil { return "error" }
        return count.allocationsPerOperation.map { Figures.fixed($0, 2) } ?? "-"
    }

    /// Whether any count has its allocations (a record from before they were counted has none).
    var hasAllocations: Bool { counts.contains { $0.allocationsPerOperation != nil } }

    /// The table, one row per path and one column per engine, then a line per failure; for `report.md`, which puts
    /// its own heading above it.
    public func markdownSection() -> String {
        var text =
            "Instructions per operation of single-threaded paths, counted by callgrind (\(tool) "
            + "\(Callgrind.options.joined(separator: " "))) over every thread of the process, the engine's workers included. "
            + "Each cell comes from two runs in processes of their own, with N/2 and N operations after the same "
            + "\(warmUp) warm-up operations: the difference of their instructions divided by N/2, so start-up, setup and "
            + "teardown cancel. "
        text +=
            realTime
            ? "Every run had one CPU at real-time priority, so each hand-off between threads went the same way in every "
                + "run and the counts repeat (two runs agree within 1%): a change of a few percent is a change of the code. "
            : "The runs could not have real-time priority (not root), so where threads hand work over or a pool's "
                + "workers spin, counts vary from run to run (here by up to 7%, and `actor`'s `sync` from 7,500 to 10,500): read "
                + "them as estimates. "
        text +=
            "A count says nothing of cache misses, contention or waiting: valgrind runs one thread at a time, so a "
            + "hand-off costs what the code executes, not what the hardware takes, and a system call counts only its "
            + "user-space instructions.\n\n"
        text += "| path | one operation | N | " + engines.joined(separator: " | ") + " |\n"
        text += "| --- | --- | ---: |" + String(repeating: " ---: |", count: engines.count) + "\n"
        for path in paths {
            let operations = counts.first { $0.path == path }.map { "\($0.highOperations)" } ?? "-"
            text +=
                "| `\(path.rawValue)` | \(path.operation) | \(operations) | "
                + engines.map { cell(path, $0) }.joined(separator: " | ") + " |\n"
        }
        if hasAllocations {
            text +=
                "\nHeap allocations per operation, from the same runs: calls into the C library's allocators "
                + "(`malloc`, `calloc`, `realloc`, the aligned ones) from outside them, which every Swift object, buffer "
                + "and box reaches. A path that allocates nothing per operation counts 0; a buffer that grows now and "
                + "then, a fraction.\n\n"
            text += "| path | " + engines.joined(separator: " | ") + " |\n"
            text += "| --- |" + String(repeating: " ---: |", count: engines.count) + "\n"
            for path in paths {
                text += "| `\(path.rawValue)` | " + engines.map { allocationCell(path, $0) }.joined(separator: " | ") + " |\n"
            }
        }
        if !failures.isEmpty {
            text +=
                "\nNo count:\n\n"
                + failures.map { "- `\($0.path.rawValue)` on `\($0.engine)`: \($0.reasonForNoCount)" }
                .joined(separator: "\n") + "\n"
        }
        return text
    }

    /// `instructions.md`: a heading and `markdownSection()`.
    public func markdownDocument() -> String { "# Instructions per operation\n\n" + markdownSection() }

    /// The table as aligned plain text for the console, failures after it.
    public func text() -> String {
        let rows = [["instructions"] + engines] + paths.map { path in [path.rawValue] + engines.map { cell(path, $0) } }
        var text = TextTable.lines(rows, leftAligned: [0]).joined(separator: "\n") + "\n"
        if hasAllocations {
            let allocationRows =
                [["allocations"] + engines] + paths.map { path in [path.rawValue] + engines.map { allocationCell(path, $0) } }
            text += "\n" + TextTable.lines(allocationRows, leftAligned: [0]).joined(separator: "\n") + "\n"
        }
        for failure in failures {
            text += "\(failure.path.rawValue) on \(failure.engine): \(failure.reasonForNoCount)\n"
        }
        return text
    }

    /// The table as pretty-printed JSON with sorted keys. Costs one encoding.
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// The table in `instructions.json` at `path`, or `nil` when there is none or it cannot be read. Costs reading
    /// and decoding the file.
    public static func read(_ path: String) -> InstructionTable? {
        guard let text = Files.read(path) else { return nil }
        return try? JSONDecoder().decode(InstructionTable.self, from: Data(text.utf8))
    }

    /// The JSON file `arena instructions --out DIR` writes into a results folder, and `arena report` reads.
    public static let jsonName = "instructions.json"
    /// The Markdown file beside it (`markdownDocument()`).
    public static let markdownName = "instructions.md"
}
