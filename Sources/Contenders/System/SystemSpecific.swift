import ArenaContract
import Dispatch

/// The box a queue-specific value travels in through `DispatchSpecificKey`.
final class SpecificBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The `DispatchSpecificKey` behind a `SpecificKey`, made on first use and kept on the key.
final class NativeSpecificKey<Value>: @unchecked Sendable {
    let key = DispatchSpecificKey<SpecificBox<Value>>()
}

extension SpecificKey {
    /// The Dispatch key standing for this key.
    var dispatchKey: DispatchSpecificKey<SpecificBox<Value>> {
        if let made = native.load() { return (made as! NativeSpecificKey<Value>).key }
        let made = native.storeIfNil(NativeSpecificKey<Value>())
        return (made as! NativeSpecificKey<Value>).key
    }
}
