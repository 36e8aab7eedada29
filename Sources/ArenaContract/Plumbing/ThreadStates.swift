import CLinux
import Glibc

/// Kernel thread states, for worker pools that grow when their workers block where they cannot see (libdispatch's
/// Linux workqueue monitor does the same), and for checks that must know a thread is blocked before they act.
package enum ThreadStates {
    /// The kernel's id of the calling thread (gettid), as /proc/self/task names it. One system call.
    package static func currentID() -> Int32 { clinux_thread_id() }

    /// Whether the kernel has thread `id` of this process running or ready to run (state R in
    /// /proc/self/task/ID/stat). A few system calls: call it from a monitor, not from a hot path.
    package static func isRunnable(_ id: Int32) -> Bool {
        guard let text = read("/proc/self/task/\(id)/stat"),
            let close = text.lastIndex(of: UInt8(ascii: ")")), close + 2 < text.count
        else { return false }
        return text[close + 2] == UInt8(ascii: "R")  // "pid (name) S ...": the state follows the name
    }

    /// Nanoseconds thread `id` of this process has spent on a CPU (the first figure of /proc/self/task/ID/schedstat),
    /// or nil where the kernel does not keep it (or the thread is gone).
    package static func runNanoseconds(_ id: Int32) -> UInt64? {
        guard let text = read("/proc/self/task/\(id)/schedstat") else { return nil }
        return UInt64(String(decoding: text.prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self))
    }

    /// Whether every CPU of the machine has a thread to run besides the caller: the kernel's count of runnable
    /// threads, machine-wide (the fourth field of /proc/loadavg, "running/total"), exceeds the online CPUs. Two system
    /// calls and a short read; false where the file cannot be read.
    package static func cpusSaturated() -> Bool {
        guard let text = read("/proc/loadavg") else { return false }
        let fields = text.split(separator: UInt8(ascii: " "))
        guard fields.count >= 4, let slash = fields[3].firstIndex(of: UInt8(ascii: "/")),
            let running = Int(String(decoding: fields[3][..<slash], as: UTF8.self))
        else { return false }
        return running > sysconf(Int32(_SC_NPROCESSORS_ONLN))
    }

    /// The kernel ids of this process's threads (the entries of /proc/self/task). A directory read.
    package static func threadIDs() -> [Int32] {
        guard let directory = opendir("/proc/self/task") else { return [] }
        defer { closedir(directory) }
        var ids: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let id = Int32(name) { ids.append(id) }
        }
        return ids
    }

    /// The name of thread `id` (/proc/self/task/ID/comm: at most 15 bytes), or nil where the thread is gone.
    package static func name(_ id: Int32) -> String? {
        read("/proc/self/task/\(id)/comm").map { String(decoding: $0.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self) }
    }

    /// How often thread `id` left its CPU, by its own wait or preempted: the voluntary and involuntary context switches
    /// of /proc/self/task/ID/status added up, or nil where the thread is gone. A read of about 1.5 kB.
    package static func contextSwitches(_ id: Int32) -> Int? {
        guard let text = read("/proc/self/task/\(id)/status", capacity: 4096) else { return nil }
        var total = 0
        for line in text.split(separator: UInt8(ascii: "\n")) {
            let field = String(decoding: line, as: UTF8.self)
            guard field.hasPrefix("voluntary_ctxt_switches:") || field.hasPrefix("nonvoluntary_ctxt_switches:") else { continue }
            total += Int(String(field.drop { $0 != ":" }.dropFirst().filter(\.isNumber))) ?? 0
        }
        return total
    }

    private static func read(_ path: String, capacity: Int = 256) -> ArraySlice<UInt8>? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: capacity)
        let count = Glibc.read(descriptor, &buffer, buffer.count)
        return count > 0 ? buffer[0..<count] : nil
    }
}
