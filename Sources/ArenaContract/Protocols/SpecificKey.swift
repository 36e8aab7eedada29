import Synchronization

/// The name of a queue-specific value: a key is compared by identity, and carries the type of its value.
///
/// Engines that key their tables by identity use `ObjectIdentifier(key)`. An engine that needs a native key object
/// (the system engine's `DispatchSpecificKey`) makes it once and keeps it in `native`; the first store wins, so the
/// cost after the first use is one atomic load.
public final class SpecificKey<Value: Sendable>: Sendable {
    /// A name for reports and diagnostics.
    public let name: String

    /// A native key an engine derives from this key on first use.
    // The lazy reference is itself thread-safe; what it holds is the storing engine's business.
    nonisolated(unsafe) package let native = AtomicLazyReference<AnyObject>()

    /// A new key, distinct from every other key.
    public init(_ name: String) { self.name = name }
}
