/// A queue's specific values. A cold path: set rarely, read by `getSpecific`/`currentSpecific`, never by a queue's
/// submit or drain path.
///
/// Locks: one pthread mutex per queue, guarding the dictionary.
final class LockFreeSpecifics: @unchecked Sendable {
    private let lock = PthreadMutex()
    private var values: [ObjectIdentifier: Any] = [:]

    func set(_ key: ObjectIdentifier, _ value: Any?) { lock.withLock { values[key] = value } }

    func get(_ key: ObjectIdentifier) -> Any? { lock.withLock { values[key] } }
}
