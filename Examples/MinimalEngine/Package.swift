// swift-tools-version: 6.2
import PackageDescription

// An outside author's package, as docs/EXTENDING.md builds it: an engine in a module of its own (it needs only the
// contract), a workload in another (it needs the contract and the benchmark library, which stands on the contract
// too: neither compiles a home engine), and a three-line executable that runs DispatchArena's command line with both.
// Here the dependency is the repository itself, by path; in your package it is
// `.package(url: "<the repository's URL>", branch: "main")`.
let package = Package(
    name: "MinimalEngine",
    products: [
        .library(name: "MinimalEngine", targets: ["MinimalEngine"]),
        .library(name: "ReadMostlyCache", targets: ["ReadMostlyCache"]),
        .library(name: "ThreadExecutors", targets: ["ThreadExecutors"]),
        .library(name: "PriorityBuckets", targets: ["PriorityBuckets"]),
        .library(name: "CoreBoundAdmission", targets: ["CoreBoundAdmission"]),
        .executable(name: "minimal-arena", targets: ["MinimalArena"]),
        .executable(name: "faulty-arena", targets: ["FaultyArena"]),
    ],
    dependencies: [
        .package(name: "DispatchArena", path: "../.."),
        // The contract's operation layer keeps its ready list in a `Heap` (the woven copy of it needs the module too);
        // `PriorityBuckets` keeps its in `Deque`s.
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        // The engine: it needs only the contract (the protocols and the building blocks), none of the home engines.
        .target(name: "MinimalEngine", dependencies: [.product(name: "ArenaContract", package: "DispatchArena")]),
        // A workload of the user's own: a read-mostly cache behind four guards, measured on every contender. `Bench`
        // depends on the contract alone, so building this target builds none of the home engines (.ci/run checks it).
        .target(
            name: "ReadMostlyCache",
            dependencies: [
                .product(name: "ArenaContract", package: "DispatchArena"),
                .product(name: "Bench", package: "DispatchArena"),
            ]
        ),
        // docs/EXTENDING.md, "Bring only what you have": an executor layer alone (threads of its own), a contender as
        // `LayerContender(name:summary:executors:)`, its GCD the system engine's; and "Replace one piece": the default
        // executor layer with its serial executors, or its pool, replaced by those threads.
        .target(name: "ThreadExecutors", dependencies: [.product(name: "ArenaContract", package: "DispatchArena")]),
        // docs/EXTENDING.md, "Replace one piece": a ready list of its own for the contract's default operation layer.
        .target(
            name: "PriorityBuckets",
            dependencies: [
                .product(name: "ArenaContract", package: "DispatchArena"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // docs/EXTENDING.md, "Replace one piece": an admission of its own for the contract's default operation layer.
        .target(name: "CoreBoundAdmission", dependencies: [.product(name: "ArenaContract", package: "DispatchArena")]),
        // `minimal-arena`: the whole `arena` command line with the minimal engine, one rule, the cache workload and a
        // reporter of its own (ratios.tsv) beside the built-in ones.
        .executableTarget(
            name: "MinimalArena",
            dependencies: [
                "MinimalEngine", "ReadMostlyCache",
                .product(name: "ArenaCLI", package: "DispatchArena"),
                .product(name: "ArenaContract", package: "DispatchArena"),
                .product(name: "Conformance", package: "DispatchArena"),
                .product(name: "Harness", package: "DispatchArena"),
                .product(name: "Reporting", package: "DispatchArena"),
            ],
            path: "Sources/minimal-arena"
        ),
        // Mutant schemata (docs/MUTANTS.md): `weave-faults` copies the engine above and the contract's default
        // operation and executor layers into `FaultyMinimalEngine` (engine `minimal-faulty`) with every fault of
        // Mutants/faults.txt woven in, each chosen at run time by ARENA_FAULT; `faulty-arena` runs the catalog on it.
        .executableTarget(name: "weave-faults", path: "Sources/weave-faults"),
        .plugin(name: "WeaveFaults", capability: .buildTool(), dependencies: ["weave-faults"]),
        .target(
            name: "FaultyMinimalEngine",
            dependencies: [
                .product(name: "ArenaContract", package: "DispatchArena"),
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            plugins: ["WeaveFaults"]
        ),
        .executableTarget(
            name: "FaultyArena",
            dependencies: ["FaultyMinimalEngine", .product(name: "ArenaCLI", package: "DispatchArena")],
            path: "Sources/faulty-arena"
        ),
        .testTarget(
            name: "MinimalEngineTests",
            dependencies: [
                "MinimalEngine", "MinimalArena", "ReadMostlyCache", "FaultyMinimalEngine", "FaultyArena", "ThreadExecutors",
                "PriorityBuckets", "CoreBoundAdmission",
                .product(name: "ArenaCLI", package: "DispatchArena"),
                .product(name: "ArenaContract", package: "DispatchArena"),
                .product(name: "Bench", package: "DispatchArena"),
                .product(name: "Conformance", package: "DispatchArena"),
                .product(name: "Contenders", package: "DispatchArena"),
                .product(name: "Harness", package: "DispatchArena"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
