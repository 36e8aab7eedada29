// swift-tools-version: 6.2
import PackageDescription

// Dependencies, each for a reason:
// - swift-argument-parser: the `arena` command line (subcommands, validation, exit code 64 on usage errors).
// - swift-collections: `Deque` (FIFO queues without O(n) removal at the front) and `Heap` (the timer thread's
//   deadlines) for the mutex engine.
// - hdrhistogram-swift: per-operation latency percentiles in the benchmarks, at fixed memory and a few ns a record.
let package = Package(
    name: "DispatchArena",
    products: [
        .executable(name: "arena", targets: ["Arena"]),
        // The `arena` command line as a library: an executor author's executable calls `ArenaMain.run(engines:)`.
        .library(name: "ArenaCLI", targets: ["ArenaCLI"]),
        // The contract an outside engine implements, and the building blocks it may reuse: the engine protocols,
        // `Deadline`, capabilities, `misuse`, the default operation and executor layers, `RegionData`,
        // `SourceIOChannel`, `GCDBorrower`. It compiles none of the home engines.
        .library(name: "ArenaContract", targets: ["ArenaContract"]),
        // The home engines (system, mutex, lockfree, actor) and Swift's default executors (swift).
        .library(name: "Contenders", targets: ["Contenders"]),
        // Foundation's OperationQueue as the `foundation` contender, the reference for operation queues.
        .library(name: "FoundationContender", targets: ["FoundationContender"]),
        // One call at the top of `main` that makes a home engine Swift Concurrency's global executor
        // (`ArenaTakeover.installOrExit(engineNamed:)`), with the built-in engines (`BuiltInEngines`).
        .library(name: "ArenaTakeover", targets: ["ArenaTakeover"]),
        // The same, preloadable into an unmodified program (`LD_PRELOAD`, which `arena exec` sets): its constructor
        // installs the engine `ARENA_EXECUTOR` names before the program's `main`.
        .library(name: "ArenaGlobalExecutor", type: .dynamic, targets: ["ArenaPreload"]),
        // Latches, locks and plain threads that outside rules use beside the catalog's helpers.
        .library(name: "Harness", targets: ["Harness"]),
        .library(name: "Conformance", targets: ["Conformance"]),
        // The benchmarks an outside workload builds on (the `Workload` protocol and what a trial uses, measurement, the
        // built-in workloads): on the contract alone, so it compiles none of the home engines either.
        .library(name: "Bench", targets: ["Bench"]),
        // The run record and the reporters that make every output from it (console tables, report.md, the plots' data,
        // Google Benchmark JSON, CSV, pytest-benchmark JSON, comparisons).
        .library(name: "Reporting", targets: ["Reporting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        // Linux calls Glibc does not import (epoll, eventfd): thin C wrappers, no engine logic.
        .target(name: "CLinux"),
        .target(
            name: "ArenaContract",
            dependencies: [
                "CLinux",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        .target(
            name: "Contenders",
            dependencies: [
                "ArenaContract", "CLinux",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        .target(name: "FoundationContender", dependencies: ["ArenaContract", "Contenders"]),
        // The built-in engines, in the order reports list them (`BuiltInEngines`): the one list.
        .target(name: "HomeEngines", dependencies: ["ArenaContract", "Contenders", "FoundationContender"]),
        .target(name: "ArenaTakeover", dependencies: ["ArenaContract", "HomeEngines"]),
        // The preloadable library: a C constructor (ArenaPreloadStart) calling the Swift installer (ArenaPreload).
        // Its own references bind inside it (-Bsymbolic): a program it is preloaded into may carry other copies of the
        // same packages (swift-collections), which must not stand in for this library's.
        .target(name: "ArenaPreloadStart"),
        .target(
            name: "ArenaPreload", dependencies: ["ArenaTakeover", "ArenaPreloadStart"],
            linkerSettings: [.unsafeFlags(["-Xlinker", "-Bsymbolic"])]),
        // What checks and workloads share and no engine may use: locks for bookkeeping, latches, plain threads, child
        // processes.
        .target(name: "Harness", dependencies: ["ArenaContract", "CLinux"]),
        .target(name: "Conformance", dependencies: ["ArenaContract", "Harness"]),
        // The catalog's mutants: engines with one deliberate fault each, and the rule→fault table (`Kill`). Package
        // access only, no product: the tests run them, and `arena explain` shows a rule failing on one (in a child
        // process, by name; no mutant is a contender of `list` or `conform`).
        .target(name: "Mutants", dependencies: ["ArenaContract", "Contenders", "Conformance", "Harness"]),
        // The benchmarks stand on the contract, never on `Contenders`: an outside workload's package
        // (Examples/MinimalEngine's `ReadMostlyCache`) then builds no home engine, which .ci/run checks. A workload
        // that names a home engine's own types (protocol-cost: the system engine's `SystemQueue` beside the generic
        // path) lives in ArenaCLI.
        .target(
            name: "Bench",
            dependencies: ["ArenaContract", "CLinux", "Harness", .product(name: "Histogram", package: "hdrhistogram-swift")]
        ),
        // The run record (`run.json`) and its reporters: what a results folder holds and every file made from it. It
        // reads the conformance results as `Conformance` types and the benchmarks as `Bench` types, and measures nothing.
        // Its gnuplot scripts (Plots/Scripts) are compiled into the module as byte arrays (`PackageResources`), so
        // `arena plot` needs no file beside the executable; the folder's README.md is their contract, not a resource.
        .target(
            name: "Reporting", dependencies: ["ArenaContract", "Bench", "Conformance", "Harness"],
            exclude: ["Plots/Scripts/README.md"],
            resources: [.embedInCode("Plots/Scripts"), .embedInCode("Analysis/known-core-counts.md")]
        ),
        .target(
            name: "ArenaCLI",
            dependencies: [
                "ArenaContract", "Contenders", "FoundationContender", "HomeEngines", "ArenaTakeover", "Conformance", "Bench", "Reporting",
                "Harness",
                "Mutants", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "Arena", dependencies: ["ArenaCLI"]),
        .testTarget(
            name: "DispatchArenaTests",
            dependencies: [
                "ArenaContract", "Contenders", "FoundationContender", "Harness", "Conformance", "Bench", "Reporting", "Arena",
                "ArenaCLI", "ArenaTakeover",
                "Mutants",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
