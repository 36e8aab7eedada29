// README: Swift 6.3's Dispatch on Linux lacks process, file-system-object (vnode) and memory-pressure sources, and
// the DispatchSerialQueue type. This program asks the compiler (swiftc -typecheck of one line each) and the library
// (dlsym of the source types in libdispatch.so) and prints what is there.
// Run:
//   swiftc -O findings/dispatch-missing-api/main.swift -o /tmp/missing && /tmp/missing
// (needs swiftc on PATH, or SWIFTC=/path/to/swiftc).
// The contract: Apple's Dispatch documents DispatchSource.makeProcessSource(identifier:eventMask:queue:),
// makeFileSystemObjectSource(fileDescriptor:eventMask:queue:), makeMemoryPressureSource(eventMask:queue:)
// (dispatch_source_create(3): DISPATCH_SOURCE_TYPE_PROC, _VNODE, _MEMORYPRESSURE) and DispatchSerialQueue
// (macOS 14, the SerialExecutor SE-0392 names). swift-corelibs-libdispatch's source.h marks the three source types
// DISPATCH_LINUX_UNAVAILABLE(). Portable code using them does not build on Linux.
import Dispatch
import Foundation

setvbuf(stdout, nil, _IOLBF, 0)

let swiftc = ProcessInfo.processInfo.environment["SWIFTC"] ?? "swiftc"
let directory = NSTemporaryDirectory() + "dispatch-missing-api-\(getpid())"
try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

func typechecks(_ line: String) -> (Bool, String) {
    let path = directory + "/snippet.swift"
    try! ("import Dispatch\n" + line + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [swiftc, "-typecheck", path]
    let pipe = Pipe()
    process.standardError = pipe
    process.standardOutput = pipe
    try! process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let error = output.split(separator: "\n").first { $0.contains("error:") }.map { String($0.split(separator: "error: ", maxSplits: 1).last ?? "") } ?? ""
    return (process.terminationStatus == 0, error)
}

print("The Swift overlay (swiftc -typecheck):")
var missing = 0
let snippets: [(String, String)] = [
    ("process source", "_ = DispatchSource.makeProcessSource(identifier: 1, eventMask: .exit)"),
    ("file-system-object source", "_ = DispatchSource.makeFileSystemObjectSource(fileDescriptor: 0, eventMask: .write)"),
    ("memory-pressure source", "_ = DispatchSource.makeMemoryPressureSource(eventMask: .warning)"),
    ("DispatchSerialQueue", "let q: DispatchSerialQueue? = nil; _ = q"),
    ("control: timer source", "_ = DispatchSource.makeTimerSource()"),
    ("control: read source", "_ = DispatchSource.makeReadSource(fileDescriptor: 0)"),
]
for (name, line) in snippets {
    let (ok, error) = typechecks(line)
    if !ok && !name.hasPrefix("control") { missing += 1 }
    print("  \(name): \(ok ? "available" : "missing (\(error))")")
}

print("libdispatch.so (dlsym of the source type):")
let handle = dlopen("libdispatch.so", RTLD_NOW)
for symbol in ["_dispatch_source_type_proc", "_dispatch_source_type_vnode", "_dispatch_source_type_memorypressure", "_dispatch_source_type_read", "_dispatch_source_type_timer"] {
    print("  \(symbol): \(dlsym(handle, symbol) == nil ? "missing" : "exported")")
}
print("\(missing) of 4 documented APIs missing from the overlay")
