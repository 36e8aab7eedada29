// swift-tools-version: 6.2
import PackageDescription

// Dependencies, each for a reason:
// - swift-argument-parser: the `arena` command line (subcommands, validation, exit code 64 on usage errors).
let package = Package(
    name: "DispatchArena",
    products: [
        .executable(name: "arena", targets: ["Arena"]),
        .library(name: "Contenders", targets: ["Contenders"]),
        .library(name: "Conformance", targets: ["Conformance"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "Contenders"),
        .target(name: "Conformance", dependencies: ["Contenders"]),
        .executableTarget(
            name: "Arena",
            dependencies: [
                "Contenders", "Conformance",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "ConformanceTests", dependencies: ["Contenders", "Conformance", "Arena"]),
    ],
    swiftLanguageModes: [.v6]
)
