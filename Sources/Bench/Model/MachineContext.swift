import Glibc

/// The machine and build a run was measured on: Google Benchmark's `context` object, plus the Swift compiler and the
/// kernel, which matter as much as the CPU when comparing concurrency engines.
///
/// The coding keys are Google Benchmark's field names (`host_name`, `num_cpus`, …), so a context encoded with
/// `JSONEncoder` reads like the one in the reports.
public struct MachineContext: Sendable, Codable, Equatable {
    /// One CPU cache, as /sys/devices/system/cpu/cpu0/cache/index*/ describes it.
    public struct Cache: Sendable, Codable, Equatable {
        /// "Data", "Instruction" or "Unified".
        public var type: String
        /// 1 for L1, 2 for L2, …
        public var level: Int
        /// The size in bytes.
        public var size: Int
        /// How many logical CPUs share this cache.
        public var numSharing: Int

        /// A cache with the given description; `current(executable:)` reads them from sysfs, tests make their own.
        public init(type: String, level: Int, size: Int, numSharing: Int) {
            self.type = type
            self.level = level
            self.size = size
            self.numSharing = numSharing
        }

        enum CodingKeys: String, CodingKey {
            case type, level, size
            case numSharing = "num_sharing"
        }
    }

    /// The DispatchArena version reports name in `library_version`; raise it when the reports or the measurements
    /// change in a way that makes old and new numbers not comparable.
    public static let arenaVersion = "0.6"

    /// When the context was taken: ISO 8601, local time with its UTC offset ("2026-11-22T10:11:12+00:00").
    public var date: String
    /// The machine's host name.
    public var hostName: String
    /// The path of the program that measured (as it was invoked).
    public var executable: String
    /// Online logical CPUs.
    public var numCPUs: Int
    /// The clock of the first CPU in MHz, from /proc/cpuinfo; 0 when unknown (some virtual machines, non-x86).
    public var mhzPerCPU: Int
    /// Whether frequency scaling may change the clock during the run: true when CPU 0 has a scaling governor other
    /// than "performance". False when there is no governor (typical of virtual machines), as Google Benchmark does.
    public var cpuScalingEnabled: Bool
    /// The caches CPU 0 sees; empty when the kernel does not say.
    public var caches: [Cache]
    /// The 1, 5 and 15 minute load averages when the context was taken; a high one explains noisy points.
    public var loadAverage: [Double]
    /// "DispatchArena <version>".
    public var libraryVersion: String
    /// "debug" or "release": how the measuring program was compiled. Debug numbers are not worth comparing.
    public var libraryBuildType: String
    /// Google Benchmark's JSON schema version this context and its report follow (1).
    public var jsonSchemaVersion: Int
    /// The Swift compiler version the measuring program was built with (major.minor, decided at compile time), not
    /// the toolchain installed when it runs.
    public var swiftVersion: String
    /// The kernel release (`uname -r`), since futexes, epoll and the scheduler are part of what is measured.
    public var kernel: String

    /// A context with every field given, for tests and for contexts read back from elsewhere; measuring code uses
    /// `current(executable:)`.
    public init(
        date: String, hostName: String, executable: String, numCPUs: Int, mhzPerCPU: Int,
        cpuScalingEnabled: Bool, caches: [Cache], loadAverage: [Double], libraryVersion: String,
        libraryBuildType: String, jsonSchemaVersion: Int = 1, swiftVersion: String, kernel: String
    ) {
        self.date = date
        self.hostName = hostName
        self.executable = executable
        self.numCPUs = numCPUs
        self.mhzPerCPU = mhzPerCPU
        self.cpuScalingEnabled = cpuScalingEnabled
        self.caches = caches
        self.loadAverage = loadAverage
        self.libraryVersion = libraryVersion
        self.libraryBuildType = libraryBuildType
        self.jsonSchemaVersion = jsonSchemaVersion
        self.swiftVersion = swiftVersion
        self.kernel = kernel
    }

    enum CodingKeys: String, CodingKey {
        case date
        case hostName = "host_name"
        case executable
        case numCPUs = "num_cpus"
        case mhzPerCPU = "mhz_per_cpu"
        case cpuScalingEnabled = "cpu_scaling_enabled"
        case caches
        case loadAverage = "load_avg"
        case libraryVersion = "library_version"
        case libraryBuildType = "library_build_type"
        case jsonSchemaVersion = "json_schema_version"
        case swiftVersion = "swift_version"
        case kernel
    }

    /// A context that says nothing is known: what a file format that needs one gets for a record without it.
    public static let unknown = MachineContext(
        date: "", hostName: "unknown", executable: "", numCPUs: 0, mhzPerCPU: 0, cpuScalingEnabled: false, caches: [],
        loadAverage: [], libraryVersion: "DispatchArena " + arenaVersion, libraryBuildType: "unknown", swiftVersion: "",
        kernel: "")

    /// The context of this machine and this build, now. Reads /proc and /sys; whatever is missing is reported as
    /// 0, false or empty rather than failing, since a report without a cache list is still a report.
    public static func current(executable: String) -> MachineContext {
        var loads = [Double](repeating: 0, count: 3)
        if getloadavg(&loads, 3) != 3 { loads = [0, 0, 0] }
        return MachineContext(
            date: isoDate(), hostName: hostName(), executable: executable,
            numCPUs: max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))), mhzPerCPU: cpuMHz(),
            cpuScalingEnabled: scalingEnabled(), caches: caches(), loadAverage: loads,
            libraryVersion: "DispatchArena " + arenaVersion, libraryBuildType: buildType, jsonSchemaVersion: 1,
            swiftVersion: compilerVersion, kernel: kernelRelease())
    }

    #if DEBUG
        static let buildType = "debug"
    #else
        static let buildType = "release"
    #endif

    // The compiler that built this file, decided at compile time: there is no run-time query for it.
    #if compiler(>=7.0)
        static let compilerVersion = "7.0 or later"
    #elseif compiler(>=6.5)
        static let compilerVersion = "6.5"
    #elseif compiler(>=6.4)
        static let compilerVersion = "6.4"
    #elseif compiler(>=6.3)
        static let compilerVersion = "6.3"
    #elseif compiler(>=6.2)
        static let compilerVersion = "6.2"
    #else
        static let compilerVersion = "before 6.2"
    #endif

    /// Now as "2026-11-22T10:11:12+00:00", the way Google Benchmark writes it: local time, then the offset with a
    /// colon (strftime's %z has none).
    /// Now, as ISO 8601 local time with its UTC offset ("2026-11-22T10:11:12+00:00").
    public static func isoDate() -> String {
        var now = time(nil)
        var local = tm()
        guard localtime_r(&now, &local) != nil else { return "" }
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local)
        guard length > 0 else { return "" }
        var text = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.count >= 5 { text.insert(":", at: text.index(text.endIndex, offsetBy: -2)) }
        return text
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return string(fromNulTerminated: buffer)
    }

    static func kernelRelease() -> String {
        var names = utsname()
        guard uname(&names) == 0 else { return "" }
        return withUnsafeBytes(of: &names.release) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// The first "cpu MHz" line of /proc/cpuinfo, truncated to an integer as Google Benchmark reports it.
    static func cpuMHz() -> Int {
        guard let text = Files.read("/proc/cpuinfo") else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("cpu MHz") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingWhitespace()
            if let mhz = Double(value), mhz.isFinite, mhz > 0 { return Int(mhz) }
        }
        return 0
    }

    static func scalingEnabled() -> Bool {
        guard let governor = Files.read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") else { return false }
        let name = governor.trimmingWhitespace()
        return !name.isEmpty && name != "performance"
    }

    /// Every index*/ directory of CPU 0's cache description, in index order, until the first missing one.
    static func caches() -> [Cache] {
        var caches: [Cache] = []
        for index in 0..<16 {
            let directory = "/sys/devices/system/cpu/cpu0/cache/index\(index)/"
            guard let type = Files.read(directory + "type")?.trimmingWhitespace(),
                let level = Files.read(directory + "level").flatMap({ Int($0.trimmingWhitespace()) }),
                let size = Files.read(directory + "size").flatMap({ bytes(fromSize: $0.trimmingWhitespace()) })
            else { break }
            let sharing = Files.read(directory + "shared_cpu_map").map { countBits(inCPUMap: $0.trimmingWhitespace()) } ?? 1
            caches.append(Cache(type: String(type), level: level, size: size, numSharing: max(1, sharing)))
        }
        return caches
    }

    /// "32K" → 32768, "1024K", "36M", or plain bytes.
    static func bytes(fromSize text: Substring) -> Int? {
        guard let last = text.last else { return nil }
        let multiplier =
            switch last {
            case "K", "k": 1024
            case "M", "m": 1024 * 1024
            case "G", "g": 1024 * 1024 * 1024
            default: 1
            }
        return Int(multiplier == 1 ? text : text.dropLast()).map { $0 * multiplier }
    }

    /// The set bits of a hexadecimal CPU mask such as "3" or "00000000,0000000f": the CPUs sharing a cache.
    static func countBits(inCPUMap text: Substring) -> Int {
        text.reduce(0) { count, character in
            count + (character.hexDigitValue.map { $0.nonzeroBitCount } ?? 0)
        }
    }

    private static func string(fromNulTerminated buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and newlines.
    fileprivate func trimmingWhitespace() -> Substring {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return Substring(self[first...last])
    }
}
