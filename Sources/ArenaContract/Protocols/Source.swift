/// What every dispatch source shares: an event handler that runs on the source's queue, a cancel handler, and a
/// lifecycle (created inactive; activate, suspend, resume, cancel).
///
/// At most one event handler call is in flight at a time; events that arrive meanwhile coalesce into `data` of a
/// later call.
public protocol EngineSource: AnyObject, Sendable {
    /// The label given at creation; diagnostics name the source by it.
    var label: String { get }

    /// Sets the block run for each batch of events.
    func setEventHandler(_ handler: (@Sendable () -> Void)?)

    /// Sets the block run once, on the source's queue, when the source is activated: before any event handler call.
    /// A source cancelled before it was activated never runs it. Set it before `activate()`.
    func setRegistrationHandler(_ handler: (@Sendable () -> Void)?)

    /// Sets the block run once after cancellation, after the last event handler call finished.
    func setCancelHandler(_ handler: (@Sendable () -> Void)?)

    /// The data of the batch being handled; meaningful inside the event handler.
    var data: UInt { get }

    /// Starts delivering events; further calls do nothing.
    func activate()

    /// Stops delivering events; they coalesce until `resume()`. Suspensions nest.
    func suspend()

    /// Undoes one `suspend()`. Resuming more often than suspended is misuse and stops the process.
    func resume()

    /// Stops the source: no event handler call starts after this; the cancel handler runs once.
    func cancel()

    /// Whether `cancel()` was called.
    var isCancelled: Bool { get }
}

/// A source fed by the program: each `merge` combines a value into the pending data as the source's `DataMerge` says.
public protocol EngineUserDataSource: EngineSource {
    /// Combines `value` into the pending data and schedules the event handler. A merge that leaves the pending data
    /// zero schedules nothing; merges after cancel are ignored.
    func merge(_ value: UInt)
}

/// A timer source: fires at a deadline and then every `repeating` interval; `data` is the number of fires since the
/// previous handler call.
public protocol EngineTimerSource: EngineSource {
    /// Replaces the schedule: the next fire at `deadline`, then every `repeating` (`nil`: once), each within `leeway`
    /// after its time. Pending fires are cleared.
    func schedule(deadline: Deadline, repeating: Duration?, leeway: Duration)
}
