// swift-tools-version: 6.2
import PackageDescription

// SwiftNIO's own takeover of Swift Concurrency's global executor, as a library to LD_PRELOAD: its ELF constructor
// (a C target) calls NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() through a
// @_cdecl function, before the host program's main. A package of its own, so that NIO never becomes a dependency of
// DispatchArena; README.md beside this file says how it is used and what it was measured with.
let package = Package(
    name: "NIOTakeoverPreload",
    products: [
        // The .so to preload: .build/<config>/libNIOTakeoverPreload.so
        .library(name: "NIOTakeoverPreload", type: .dynamic, targets: ["NIOTakeoverPreload"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2")
    ],
    targets: [
        // The constructor: C, because Swift has no way to put a function in .init_array.
        .target(name: "CNIOTakeoverConstructor"),
        // The takeover itself, one @_cdecl function the constructor calls.
        .target(
            name: "NIOTakeoverPreload",
            dependencies: [
                "CNIOTakeoverConstructor",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            linkerSettings: [
                // The .so carries its own copies of NIO, swift-atomics and swift-collections, and a host program may
                // carry others (swift-async-algorithms' tests link DequeModule and OrderedCollections statically).
                // exports.map keeps every symbol but the constructor's entry point local, so the preload's references
                // bind to its own copies and its copies never interpose on the host's, whichever way the dynamic
                // linker would look. (-Bsymbolic would cover only the first half.) README.md says what was measured.
                .unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/exports.map"])
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
