import Glibc

/// Kernel thread states, for worker pools that grow when their workers block where they cannot see (libdispatch's
/// Linux workqueue monitor does the same).
enum ThreadStates {
    /// Whether the kernel has thread `id` of this process running or ready to run (state R in
    /// /proc/self/task/ID/stat). A few system calls: call it from a monitor, not from a hot path.
    static func isRunnable(_ id: Int32) -> Bool {
        let descriptor = open("/proc/self/task/\(id)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0, let close = buffer[0..<count].lastIndex(of: UInt8(ascii: ")")), close + 2 < count else { return false }
        return buffer[close + 2] == UInt8(ascii: "R")  // "pid (name) S ...": the state follows the name
    }
}
