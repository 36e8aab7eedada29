import Hummingbird

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The endpoints. Each answer's body can be checked by the loader, so that a broken engine gives no number.
enum Routes {
    /// `GET /plain`'s body.
    static let plainBody = "hello from arena-server\n"

    /// `GET /work`'s shape: `children` child tasks, each checksumming `bytesPerChild` bytes, after one `sleep` per request.
    static let children = 4
    static let bytesPerChild = 512
    static let sleep = Duration.milliseconds(1)

    static func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("plain") { _, _ in
            Self.plainBody
        }
        router.get("work") { request, _ in
            // The seed comes from the request, so the compiler cannot fold the checksums into a constant.
            let seed = request.uri.queryParameters.get("seed", as: UInt32.self) ?? 1
            let result = try await Self.work(seed: seed)
            return "sum=\(result.sum) bumps=\(result.bumps)\n"
        }
        router.get("where") { _, _ in
            await Self.whereJobsRun()
        }
        return router
    }

    /// `GET /where`: the names of the threads that ran the handler, the code after a `Task.sleep`, and a child task, to
    /// see which executor is really in charge (NIO's event loops are `NIO-SGLTN-...`, Dispatch's pool `...default-qos`).
    static func whereJobsRun() async -> String {
        let handler = currentThreadName()
        try? await Task.sleep(for: Self.sleep)
        let afterSleep = currentThreadName()
        let child = await withTaskGroup(of: String.self) { group in
            group.addTask { currentThreadName() }
            return await group.next() ?? "?"
        }
        return "handler=\(handler) after-sleep=\(afterSleep) child=\(child)\n"
    }

    /// One request's work: a short sleep (as if waiting on a database), then `children` child tasks that each checksum a
    /// buffer of their own and bump a counter on an actor that the request owns. Deterministic for a seed: the sum of the
    /// children's FNV-1a checksums (`sum`) and the actor's count (`bumps`, always `children`).
    static func work(seed: UInt32) async throws -> (sum: UInt64, bumps: Int) {
        try await Task.sleep(for: Self.sleep)
        let tally = Tally()
        let sum = await withTaskGroup(of: UInt64.self) { group in
            for child in 0..<Self.children {
                group.addTask {
                    let checksum = Self.checksum(seed: seed, child: UInt32(child))
                    await tally.bump()
                    return UInt64(checksum)
                }
            }
            var sum: UInt64 = 0
            for await checksum in group { sum += checksum }
            return sum
        }
        return (sum, await tally.count)
    }

    /// FNV-1a (32 bits) over `bytesPerChild` bytes made from the seed and the child's index.
    static func checksum(seed: UInt32, child: UInt32) -> UInt32 {
        var bytes = [UInt8](repeating: 0, count: Self.bytesPerChild)
        var state = seed &* 2_654_435_761 &+ child &* 40_503 &+ 1
        for index in bytes.indices {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        var hash: UInt32 = 2_166_136_261
        for byte in bytes {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        return hash
    }
}

/// The counter the children of one request bump: one actor per request, so each request's children contend on it
/// (and hop to it) without contending with other requests.
actor Tally {
    private(set) var count = 0

    func bump() {
        self.count += 1
    }
}

/// The calling thread's name, as `ps -L` shows it (Linux: `/proc/thread-self/comm`; Glibc's module does not export
/// `pthread_getname_np`), or "?".
func currentThreadName() -> String {
    let fd = open("/proc/thread-self/comm", O_RDONLY)
    guard fd >= 0 else { return "?" }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 64)
    let count = read(fd, &buffer, buffer.count)
    guard count > 0 else { return "?" }
    return String(decoding: buffer[..<count].filter { $0 != 10 }, as: UTF8.self)
}
