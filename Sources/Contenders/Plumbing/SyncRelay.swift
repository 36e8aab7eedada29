import ArenaContract

/// Runs `block` through `perform`, which calls its argument exactly once (on this thread or another) before it
/// returns, and hands back the block's value or rethrows its error.
///
/// This lets an engine's `sync` be an `@inlinable` generic shell, specialised in the caller's module, around a
/// non-generic core: no generic metadata is looked up per call. `rescue` rethrows on the caller's side (the block may
/// have run on another thread); passing `{ throw $0 }` keeps the whole call `rethrows`, as the Dispatch overlay does.
@inlinable
func relaySync<T>(_ block: () throws -> T, through perform: (() -> Void) -> Void, rescue: (any Error) throws -> T) rethrows -> T {
    var value: T?
    var failure: (any Error)?
    withoutActuallyEscaping(block) { block in
        perform {
            do { value = try block() } catch { failure = error }
        }
    }
    if let failure { return try rescue(failure) }
    return value!
}
