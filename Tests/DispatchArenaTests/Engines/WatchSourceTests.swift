import ArenaContract
import Conformance
import Contenders
import Glibc
import Harness
import Testing

/// What the catalog cannot see of process and file sources: that the home engines let go of the pidfds and inotify
/// instances they own when a source is cancelled or released, and that `system`, which lacks both, stops the process
/// naming the source. Each check runs in a child process of its own (an exit test), so descriptors other tests open
/// meanwhile do not count.
extension ArenaTests {
    @Suite
    struct WatchSourceTests {
        /// The home engines in `ARENA_ENGINES` (all without it).
        static let homeEngines = ["mutex", "lockfree", "actor"].filter(TestEngines.catalogEngines.contains)

        @Test(
            "cancelling or releasing process and file sources closes every descriptor the engine opened for them",
            arguments: homeEngines)
        func descriptorsClosed(_ engine: String) async {
            await #expect(processExitsWith: .success) { [engine = engine as String] in
                guard let chosen = TestEngines.named(engine) else { exit(2) }
                exit(sourcesLetGoOfDescriptors(chosen) ? 0 : 1)
            }
        }

        @Test(
            "system's process and file source makers stop the process naming the source and the capability",
            .enabled(if: TestEngines.catalogEngines.contains("system")), arguments: ["process", "file"])
        func systemLacksThem(_ kind: String) async throws {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                [kind = kind as String] in
                let engine = SystemEngine()
                let queue = engine.makeQueue(label: "test.system")
                if kind == "process" {
                    _ = engine.makeProcessSource(
                        label: "test.system.lacks", processID: getpid(), events: .exit,
                        queue: queue)
                } else {
                    _ = engine.makeFileSource(
                        label: "test.system.lacks", fileDescriptor: 0, events: .write,
                        queue: queue)
                }
            }
            let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
            #expect(message.contains("'test.system.lacks'") && message.contains("\(kind)-sources"), "stderr: \(message)")
        }
    }
}

/// Makes and activates process and file sources on `engine`, then cancels them (and holds them) or releases them;
/// whether the descriptors open are back to what they were each time.
private func sourcesLetGoOfDescriptors<E: Engine>(_ engine: E) -> Bool {
    let queue = engine.makeQueue(label: "test.watch")
    let watched = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    defer { close(watched) }
    func makeBoth() -> (E.ProcessSource, E.FileSource) {
        let process = engine.makeProcessSource(
            label: "test.watch.process", processID: getpid(),
            events: .exit, queue: queue)
        let file = engine.makeFileSource(
            label: "test.watch.file", fileDescriptor: watched,
            events: .all, queue: queue)
        process.activate()
        file.activate()
        return (process, file)
    }
    // The first sources start the reactor thread (an epoll instance and an eventfd, kept for good).
    let (firstProcess, firstFile) = makeBoth()
    cancelAndDrain(firstProcess)
    cancelAndDrain(firstFile)
    let before = openDescriptors()
    // Cancelled, and still held: cancel itself must let go.
    var cancelled: [(E.ProcessSource, E.FileSource)] = []
    for _ in 0..<20 {
        let (process, file) = makeBoth()
        cancelAndDrain(process)
        cancelAndDrain(file)
        cancelled.append((process, file))
    }
    // The actor engine lets go when the source's actor handles the cancel: soon after, not at once.
    guard Timing.eventually({ openDescriptors() == before }) else { return false }
    for _ in 0..<20 { _ = makeBoth() }  // released at once, never cancelled
    return Timing.eventually { openDescriptors() == before } && cancelled.count == 20
}

/// How many descriptors the process has open now.
private func openDescriptors() -> Int {
    guard let directory = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(directory) }
    var count = 0
    while readdir(directory) != nil { count += 1 }
    return count
}
