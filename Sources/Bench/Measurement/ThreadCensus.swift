import Glibc
import Harness

/// Counts the process's threads, and among them the engine's: every thread but the main one and the harness's own
/// (which name themselves `Threads.harnessName`: workload crews, the sampler).
///
/// A take lists /proc/self/task (one directory read) and reads a thread's name (/proc/self/task/TID/comm) on the
/// second take that sees it, once: a new thread starts with its creator's name (a harness thread started by an
/// engine's worker carries the worker's until it renames itself, first thing), so a thread is judged only from its
/// second sighting on, one sampling interval later. Every thread that is neither the main one nor named as the
/// harness's is the engine's: its workers, timer and reactor threads (libdispatch's workers carry their root queue's
/// label; threads nobody names keep a creator's name). The last take of a point (`final`) judges what it sees once
/// too: by then the trial has returned and joined its crews, each of which named itself first thing, so an engine
/// thread born in the point's last interval still counts (a point shorter than one interval, whose workers started
/// inside it, used to report none). An engine thread that lives less than one sampling interval and is gone by the
/// last take can still go uncounted.
struct ThreadCensus {
    /// What a thread is.
    enum Kind {
        case main, harness, engine
        /// Seen once: not judged yet.
        case new
    }

    private let processID = getpid()
    private var kinds: [Int32: Kind] = [:]

    init() {}

    /// Threads now: all of them, and the engine's. A `final` take judges the threads it sees for the first time
    /// (from their names) instead of leaving them `new`.
    mutating func take(final: Bool = false) -> (all: Int, engine: Int) {
        guard let directory = opendir("/proc/self/task") else { return (0, 0) }
        defer { closedir(directory) }
        var seen: [Int32: Kind] = [:]
        seen.reserveCapacity(kinds.count + 4)
        var all = 0, engine = 0
        while let entry = readdir(directory) {
            guard let id = Self.threadID(entry) else { continue }
            all += 1
            let kind = classify(id, before: kinds[id] ?? (final && id != processID ? .new : nil))
            seen[id] = kind
            if case .engine = kind { engine += 1 }
        }
        kinds = seen  // forgets exited threads, whose ids the kernel may reuse
        return (all, engine)
    }

    /// What the last take made of thread `id`; nil if it did not see it.
    func kind(of id: Int32) -> Kind? { kinds[id] }

    private func classify(_ id: Int32, before: Kind?) -> Kind {
        switch before {
        case nil: return id == processID ? .main : .new
        case .new?:
            guard let name = Self.name(of: id) else { return .new }  // exited since the listing: not counted
            return name == Threads.harnessName ? .harness : .engine
        case let kind?: return kind
        }
    }

    /// The thread id a /proc/self/task entry names; nil for "." and "..".
    private static func threadID(_ entry: UnsafeMutablePointer<dirent>) -> Int32? {
        withUnsafePointer(to: &entry.pointee.d_name) { name in
            name.withMemoryRebound(to: CChar.self, capacity: 256) { Int32(String(cString: $0)) }
        }
    }

    /// The thread's name (comm), without its newline; nil if the thread is gone.
    private static func name(of id: Int32) -> String? {
        let descriptor = open("/proc/self/task/\(id)/comm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }
}
