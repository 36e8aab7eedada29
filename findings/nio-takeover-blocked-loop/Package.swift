// swift-tools-version: 6.2
// README: with SwiftNIO's takeover of Swift Concurrency's global executor, a task made from code running on an event
// loop is enqueued on that same loop; if that code then blocks the loop's thread waiting for the task (as
// swift-async-algorithms' test helper `fulfillment(of:)` does, inside withUnsafeContinuation), the task cannot run until
// the wait gives up. On Swift's default executor (libdispatch's pool) another thread runs it at once. Run (resolves
// swift-nio from its GitHub URL; a local mirror or SwiftPM's cache serves it offline):
//   swift build -c release --package-path findings/nio-takeover-blocked-loop --scratch-path /tmp/nio-blocked-build
//   /tmp/nio-blocked-build/release/NIOTakeoverBlockedLoop takeover 20
//   /tmp/nio-blocked-build/release/NIOTakeoverBlockedLoop control 20
import PackageDescription

let package = Package(
    name: "NIOTakeoverBlockedLoop",
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", "2.101.0"..<"2.102.0")
    ],
    targets: [
        .executableTarget(
            name: "NIOTakeoverBlockedLoop",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        )
    ]
)
