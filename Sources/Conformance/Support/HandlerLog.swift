import ArenaContract
import Harness

/// What a source's event handler saw: one entry per call, with the data of that call.
public final class HandlerLog: @unchecked Sendable {
    private let calls = Recorder<UInt>()
    /// How many calls of the handler overlapped (a source's handler is serial: never more than one).
    public let meter = ConcurrencyMeter()
    /// A counter a rule's `work` may use, such as calls still in progress.
    public let inFlight = Counter()

    public init() {}

    /// The data of every call, in order.
    public var data: [UInt] { calls.elements }
    /// How many calls there were.
    public var count: Int { calls.count }
    /// The data of all calls added up.
    public var sum: UInt { data.reduce(0, &+) }

    /// Installs the handler on `source`; `work` runs inside each call, after its data was recorded.
    public func attach<S: EngineSource>(to source: S, work: @escaping @Sendable (UInt) -> Void = { _ in }) {
        source.setEventHandler { [weak source, self] in
            guard let source else { return }
            meter.measure {
                let data = source.data
                calls.append(data)
                work(data)
            }
        }
    }
}

/// A user-data source with a `HandlerLog` attached, its handlers on `queue` (default: a new serial queue of the same
/// label). It is not activated: each rule decides when.
public func makeLoggedSource<E: Engine>(
    _ engine: E, _ label: String, merge: DataMerge = .add, on queue: E.Queue? = nil,
    work: @escaping @Sendable (UInt) -> Void = { _ in }
) -> (source: E.UserDataSource, log: HandlerLog) {
    let source = engine.makeUserDataSource(label: label, merge: merge, queue: queue ?? engine.makeQueue(label: label))
    let log = HandlerLog()
    log.attach(to: source, work: work)
    return (source, log)
}

/// Cancels `source` and waits (bounded) until its cancel handler ran, so no handler outlives the check.
public func cancelAndDrain<S: EngineSource>(_ source: S) {
    let cancelled = Latch()
    source.setCancelHandler { cancelled.countDown() }
    source.cancel()
    cancelled.wait(.seconds(5))
}

/// Records the data of every handler call of `source`, activates it, and returns the record once the registration
/// handler ran (from then on the source is watching); a source whose registration never comes is cancelled.
public func activateRecording<S: EngineSource>(_ source: S, label: String) throws -> Recorder<UInt> {
    let calls = Recorder<UInt>()
    source.setEventHandler { [weak source] in
        guard let source else { return }
        calls.append(source.data)
    }
    let registered = Latch()
    source.setRegistrationHandler { registered.countDown() }
    source.activate()
    do { try expectOpens(registered, "\(label)'s registration handler") } catch {
        cancelAndDrain(source)
        throw error
    }
    return calls
}
