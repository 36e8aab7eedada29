// swift-tools-version: 6.2
import PackageDescription

// An executor author's package, as docs/EXTENDING.md builds it: an engine in a module of its own, and a three-line
// executable that runs DispatchArena's command line with it. Here the dependency is the repository itself, by path;
// in your package it is `.package(url: "<the repository's URL>", branch: "main")`.
let package = Package(
    name: "MinimalEngine",
    products: [
        .library(name: "MinimalEngine", targets: ["MinimalEngine"]),
        .executable(name: "minimal-arena", targets: ["MinimalArena"]),
    ],
    dependencies: [
        .package(name: "DispatchArena", path: "../.."),
    ],
    targets: [
        // The engine: it needs only the contract (the protocols and the building blocks), none of the home engines.
        .target(name: "MinimalEngine", dependencies: [.product(name: "ArenaContract", package: "DispatchArena")]),
        // `minimal-arena`: the whole `arena` command line with the minimal engine beside the built-in ones.
        .executableTarget(
            name: "MinimalArena",
            dependencies: [
                "MinimalEngine",
                .product(name: "ArenaCLI", package: "DispatchArena"),
                .product(name: "Conformance", package: "DispatchArena"),
                .product(name: "Harness", package: "DispatchArena"),
            ],
            path: "Sources/minimal-arena"
        ),
        .testTarget(
            name: "MinimalEngineTests",
            dependencies: [
                "MinimalEngine", "MinimalArena",
                .product(name: "Bench", package: "DispatchArena"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
