import ArenaContract
import Glibc
import Harness

/// Runs a program under valgrind's callgrind and reads the instructions it executed (`Ir`), over all its threads.
///
/// Callgrind counts every instruction a thread executes in user space, whichever thread it is, so the engine's
/// workers are counted with the caller. Valgrind runs one thread at a time (a big lock, handed over at blocking
/// system calls and every 100,000 basic blocks), so the count is what the code executes along the interleaving
/// valgrind chose, never a cost of the hardware: no cache misses, no contention, no time spent waiting. A system
/// call counts as the instructions that prepare it, not the kernel's work.
public enum Callgrind {
    /// The valgrind options of every run. `--fair-sched=yes` hands the big lock over in the order threads asked for
    /// it, rather than to whichever thread the kernel wakes first, which makes the interleaving, and so the count of
    /// the few hand-offs a path has, repeat from run to run.
    public static let options = ["--tool=callgrind", "--fair-sched=yes", "-q"]

    /// The absolute path of `valgrind` on `PATH`, or `nil` when it is not installed. Costs a few `access` calls.
    public static func valgrind() -> String? { onPath("valgrind") }

    /// The absolute path of the executable `name` on `PATH`, if any.
    static func onPath(_ name: String) -> String? {
        guard let path = getenv("PATH") else { return nil }
        for directory in String(decoding: UnsafeRawBufferPointer(start: path, count: strlen(path)), as: UTF8.self)
            .split(separator: ":") where directory.hasPrefix("/")
        {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Copies `executable` to `copy` without its debug information (`objcopy --strip-debug`; the toolchain's
    /// `llvm-objcopy` will do). Valgrind 3.19 gives up on the DWARF 5 that Swift 6.3 writes ("unhandled dwarf2 abbrev
    /// form code 0x25 ... I can't recover"); the copy has the same code, so the same count, and its symbol table
    /// still names every function in callgrind's profile. Costs one child process and a copy of the program. A program
    /// without debug information (`ELFSections.hasDebugInfo`, the bundle's) needs no copy: callgrind runs it as it is.
    public static func copyWithoutDebugInfo(_ executable: String, to copy: String) -> CallgrindFailure? {
        guard let objcopy = onPath("objcopy") ?? onPath("llvm-objcopy") else {
            return CallgrindFailure("objcopy is not installed: install it with 'apt-get install binutils'")
        }
        let outcome = ChildProcess.run(["--strip-debug", executable, copy], executable: objcopy, limit: .seconds(120))
        guard outcome.termination == .exited(0) else {
            let said = outcome.standardError.split(separator: "\n")
            return CallgrindFailure("\(objcopy) --strip-debug \(executable) failed: \(ChildOutcome.firstLine(of: said))")
        }
        return nil
    }

    /// What to tell a user who has no valgrind: the one command that installs it.
    public static let installHint =
        "valgrind is not installed: install it with 'apt-get install valgrind' "
        + "(scripts/require-packages.sh does, as root)"

    /// The version line `valgrind --version` prints (`valgrind-3.19.0`), or `nil` when it does not run. Costs one
    /// child process.
    public static func version(of valgrind: String) -> String? {
        let outcome = ChildProcess.run(["--version"], executable: valgrind, limit: .seconds(30))
        guard outcome.termination == .exited(0) else { return nil }
        let line = outcome.standardOutput.split(separator: "\n").first.map(String.init)
        return line?.isEmpty == false ? line : nil
    }

    /// Runs `executable` with `arguments` under callgrind (killed once `limit` passed) and returns the instructions
    /// it executed and the heap allocations it made over all threads, or why there is no count. Costs the program's
    /// run slowed down 50 to 100 times, plus about a second of valgrind's start-up.
    public static func counts(
        running executable: String, _ arguments: [String], valgrind: String,
        limit: Duration
    ) -> Result<CallgrindCounts, CallgrindFailure> {
        var template = Array("/tmp/arena-callgrind-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return .failure(CallgrindFailure("cannot create a temporary file: errno \(errno)")) }
        close(descriptor)
        let output = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(output) }
        let outcome = ChildProcess.run(
            options + ["--callgrind-out-file=\(output)", executable] + arguments,
            executable: valgrind, limit: limit)
        // Valgrind's own lines start with "==pid==": what is left is the program's.
        let said = outcome.standardError.split(separator: "\n").filter { !$0.hasPrefix("==") }
        switch outcome.termination {
        case .exited(0): break
        case .exited(let status):
            return .failure(CallgrindFailure("exited with status \(status): \(ChildOutcome.firstLine(of: said))"))
        case .signalled(let signal):
            return .failure(CallgrindFailure("ended by signal \(signal): \(ChildOutcome.firstLine(of: said))"))
        case .timedOut:
            return .failure(CallgrindFailure("did not end within \(Int(limit.seconds)) s under callgrind and was stopped"))
        }
        guard let profile = Files.read(output), let total = total(inProfile: profile) else {
            return .failure(CallgrindFailure("callgrind wrote no instruction total to \(output)"))
        }
        return .success(CallgrindCounts(instructions: total, allocations: allocations(inProfile: profile)))
    }

    // MARK: Allocations

    /// The C library's allocating entry points, by the names callgrind gives them (glibc's exported names and the
    /// `__libc_` ones they alias). Swift's objects and buffers, C++'s `new` and every engine's nodes reach one of them.
    public static let allocators: Set<Substring> = [
        "malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign", "valloc", "pvalloc",
        "__libc_malloc", "__libc_calloc", "__libc_realloc", "__libc_memalign", "__posix_memalign",
    ]

    /// The calls into `allocators` a callgrind profile records, from functions that are not allocators themselves
    /// (glibc's `realloc` of a null pointer calls `malloc`: one allocation, not two). Reads the profile's call lines:
    /// `cfn=` names the callee (a name is written once with its number, `(12) malloc`, and by number after that, in
    /// one numbering for `fn=` and `cfn=`), and the `calls=` line after it says how many calls. Costs one pass over
    /// the profile.
    public static func allocations(inProfile profile: String) -> UInt64 {
        var names: [Substring: Substring] = [:]
        // The function a `fn=` line names, as a number or a name, with callgrind's recursion suffix (`'2`) dropped.
        func function(_ spec: Substring) -> Substring {
            var spec = spec
            if spec.hasPrefix("("), let close = spec.firstIndex(of: ")") {
                let number = spec[spec.index(after: spec.startIndex)..<close]
                let rest = spec[spec.index(after: close)...].drop { $0 == " " }
                if !rest.isEmpty { names[number] = rest }
                spec = names[number] ?? rest
            }
            return spec.split(separator: "'", maxSplits: 1).first ?? spec
        }
        var total: UInt64 = 0
        var callerAllocates = false
        var calleeAllocates = false
        for line in profile.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("fn=") {
                callerAllocates = allocators.contains(function(line.dropFirst(3)))
            } else if line.hasPrefix("cfn=") {
                calleeAllocates = allocators.contains(function(line.dropFirst(4)))
            } else if line.hasPrefix("calls=") {
                if calleeAllocates && !callerAllocates {
                    total += UInt64(line.dropFirst(6).split(separator: " ").first ?? "") ?? 0
                }
                calleeAllocates = false
            }
        }
        return total
    }

    /// The `Ir` total of a callgrind profile: its `summary:` line (`totals:` in older files), the sum over every
    /// thread when threads are not separated, as here.
    public static func total(inProfile profile: String) -> UInt64? {
        var totals: UInt64?
        for line in profile.split(separator: "\n") {
            if line.hasPrefix("summary:") { return UInt64(line.dropFirst(8).split(separator: " ").first ?? "") }
            if line.hasPrefix("totals:") { totals = UInt64(line.dropFirst(7).split(separator: " ").first ?? "") }
        }
        return totals
    }
}

/// What one run under callgrind counted, over all its threads. A plain value.
public struct CallgrindCounts: Sendable, Equatable {
    /// Instructions executed (`Ir`).
    public let instructions: UInt64
    /// Calls into the C library's allocators (`Callgrind.allocators`) from outside them: heap allocations.
    public let allocations: UInt64

    /// Counts of `instructions` and `allocations`.
    public init(instructions: UInt64, allocations: UInt64) {
        self.instructions = instructions
        self.allocations = allocations
    }
}

/// Why a run under callgrind has no count, in words for the table.
public struct CallgrindFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reason, one line.
    public let description: String
    /// A failure saying `description`.
    public init(_ description: String) { self.description = description }
}
