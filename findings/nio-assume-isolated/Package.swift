// swift-tools-version: 6.2
// README: SwiftNIO 2.101's event-loop executor implements checkIsolated (SE-0424) but not isIsolatingCurrentContext
// (SE-0471), so `assumeIsolated` on an actor whose executor is an event loop's, called off that loop, dies in NIO's
// bare preconditionInEventLoop (SIGILL, nothing on stderr in a release build) instead of the runtime's message naming
// the actor. Run (resolves swift-nio from its GitHub URL; a local mirror or SwiftPM's cache serves it offline):
//   swift build -c release --package-path findings/nio-assume-isolated --scratch-path /tmp/nio-find-build
//   /tmp/nio-find-build/release/NIOAssumeIsolated
// Correct behaviour: the process stops (assumeIsolated off its executor is a programming error), with a message
// naming the actor, as the Swift runtime prints for any executor that answers isIsolatingCurrentContext() == false:
// "Incorrect actor executor assumption; expected same executor as <Actor>".
import PackageDescription

let package = Package(
    name: "NIOAssumeIsolated",
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", "2.101.0"..<"2.102.0")
    ],
    targets: [
        .executableTarget(
            name: "NIOAssumeIsolated",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        )
    ]
)
