import ArenaContract
import NIOConcurrencyHelpers

/// Specific values of one event loop, keyed by `SpecificKey`: what `EventLoopActorExecutor.setSpecific` sets and the
/// contender's `currentSpecific` reads on the loop. NIO has no queue-specific values, so they are the layer's own,
/// shared by every actor executor on the loop (the loop is the queue). Behind NIO's lock: set from any thread, read on
/// the loop.
final class LoopSpecifics: Sendable {
    private let values = NIOLockedValueBox<[ObjectIdentifier: any Sendable]>([:])

    /// Sets (or, with `nil`, removes) the loop's value for `key`.
    func set<Value>(_ key: SpecificKey<Value>, _ value: Value?) {
        values.withLockedValue { $0[ObjectIdentifier(key)] = value }
    }

    /// The loop's value for `key`, if any.
    func value<Value>(for key: SpecificKey<Value>) -> Value? {
        values.withLockedValue { $0[ObjectIdentifier(key)] } as? Value
    }
}
