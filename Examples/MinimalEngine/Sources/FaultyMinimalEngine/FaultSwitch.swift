import ArenaContract
import Glibc

// What the woven copies need beside the generated sources (the plugin WeaveFaults writes those into the build folder:
// the tutorial engine, the contract's default operation and executor layers, and `Fault`, from Mutants/faults.txt).

/// The fault this process runs with: chosen once, before the first engine call, from `ARENA_FAULT` (a fault's id; unset
/// or empty: none, the tutorial engine exactly), or by `choose` before anything reads it. An unknown id stops the
/// process, naming the known ones.
public enum FaultSwitch {
    nonisolated(unsafe) private static var chosen: Fault?? = nil

    /// The fault woven sites test; read without a lock, so it must be set before any engine thread starts.
    public static var active: Fault? {
        if let chosen { return chosen }
        let fault = fromEnvironment()
        chosen = .some(fault)
        return fault
    }

    /// Chooses the fault from the caller (tests): call it before the first engine is made.
    public static func choose(_ fault: Fault?) { chosen = .some(fault) }

    private static func fromEnvironment() -> Fault? {
        guard let raw = getenv("ARENA_FAULT"), raw.pointee != 0 else { return nil }
        let id = String(cString: raw)
        guard let fault = Fault(rawValue: id) else {
            fatalError("ARENA_FAULT=\(id): no such fault; the faults are \(Fault.allCases.map(\.rawValue))")
        }
        return fault
    }
}

extension FaultyMinimalEngine {
    /// The woven copy of the contract's default operation layer (`EngineOperations` here is this module's copy).
    public typealias Operations = EngineOperations<FaultyMinimalEngine, PriorityReadyList, WidthAdmission>
    public var operations: EngineOperations<FaultyMinimalEngine, PriorityReadyList, WidthAdmission> { EngineOperations(self) }
    /// The woven copy of the contract's default executor layer.
    public typealias Executors = EngineExecutors<FaultyMinimalEngine>
    public var executors: EngineExecutors<FaultyMinimalEngine> { EngineExecutors(self) }
}

// The contract's package-level plumbing the copies use (its `PthreadMutex` is public), rebuilt from what another
// package may use.

/// As the contract's thread slots, on pthread keys: one per slot index, made at first use.
private let threadSlotKeys: [pthread_key_t] = (0..<8).map { _ in
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}

func claimThreadSlot(_ index: Int32) { precondition(index >= 0 && index < 8, "thread-local slot \(index) is out of range") }
// swift-format-ignore: AlwaysUseLowerCamelCase
func clinux_thread_slot(_ index: Int32) -> UnsafeMutableRawPointer? { pthread_getspecific(threadSlotKeys[Int(index)]) }
// swift-format-ignore: AlwaysUseLowerCamelCase
func clinux_set_thread_slot(_ index: Int32, _ value: UnsafeMutableRawPointer?) {
    pthread_setspecific(threadSlotKeys[Int(index)], value)
}
