/// How an I/O channel reaches its descriptor's bytes (`dispatch_io_type_t`).
public enum IOChannelKind: String, Sendable, Codable {
    /// Bytes in the order the descriptor gives them (pipes, sockets, or a file from its current position): operations
    /// of one direction run one after another and offsets are ignored.
    case stream
    /// A seekable file read and written at offsets from the descriptor's position when the channel was made;
    /// operations may run at once, and the descriptor's own position is left alone.
    case randomAccess = "random-access"
}

/// What a channel's operation handler receives: whether the operation ended, the bytes of this call, and the error
/// that ended it (0 for none, `ECANCELED` when the channel was stopped).
///
/// A read handler gets the bytes read since its previous call; a write handler gets the bytes not yet written (none
/// when the write completed).
public typealias IOHandler<Data> = @Sendable (_ done: Bool, _ data: Data?, _ error: Int32) -> Void

/// An asynchronous channel over one file descriptor (`dispatch_io_t`, `DispatchIO`): reads and writes whose handler
/// runs on a queue of the caller's choice, once or more per operation, as bytes arrive or leave.
///
/// The channel owns the descriptor from its creation until its cleanup handler runs: the caller must not read,
/// write or close it meanwhile. Operations of one channel never block a thread of the engine on the descriptor;
/// each handler call is one block on the operation's queue, and the calls of one operation run in order, one at a time.
public protocol EngineIOChannel: AnyObject, Sendable {
    /// The engine's queues, on which handlers run. (Left unconstrained here: `Engine` makes it its `Queue`, which
    /// conforms there. Constrained in both places, the conformance of a channel generic over its engine would be
    /// derived from the engine's channel, itself: the runtime recurses until the stack ends.)
    associatedtype Queue
    /// The engine's buffers, which reads deliver and writes take (`Engine` makes it its `Data`; see `Queue`).
    associatedtype Data

    /// The label given at creation; diagnostics name the channel by it.
    var label: String { get }

    /// Reads up to `length` bytes (`Int.max`: until end of file) at `offset` (ignored by a stream channel) and calls
    /// `handler` on `queue` with each run of bytes as it arrives (within the water marks), then once with `done`:
    /// at the length, at end of file, on an error, or with `ECANCELED` when the channel was stopped or closed before
    /// the read began.
    func read(offset: Int64, length: Int, queue: Queue, _ handler: @escaping IOHandler<Data>)

    /// Writes `data` at `offset` (ignored by a stream channel) and calls `handler` on `queue` once with `done` (and
    /// possibly before, with the bytes still to write, as the water marks allow); a `done` call carries the bytes
    /// left unwritten when an error ended the write.
    func write(offset: Int64, data: Data, queue: Queue, _ handler: @escaping IOHandler<Data>)

    /// No handler call carries fewer than `bytes` (unless it is `done`): reads gather until they have this many.
    func setLowWater(_ bytes: Int)

    /// No handler call carries more than `bytes`: what arrives at once is split.
    func setHighWater(_ bytes: Int)

    /// Handler calls at `interval` for the operations issued from now on (`dispatch_io_set_interval`): at each tick
    /// an operation under way delivers what its low water mark lets through, or, with `strict`
    /// (`DISPATCH_IO_STRICT_INTERVAL`), every byte read so far (a write: the bytes still to write), however few.
    /// Ticks may come late; a tick with nothing to deliver may call with no bytes or not at all. Zero turns it off.
    /// Cost: a timer per operation under way.
    func setInterval(_ interval: Duration, strict: Bool)

    /// A new channel of `kind` on this channel's descriptor (or path), with water marks and interval of its own
    /// (`dispatch_io_create_with_io`). The channels share the descriptor: their operations and barriers wait in one
    /// line, so a barrier of either waits for the operations of both; the descriptor stays held until every one of
    /// them is closed (or released) and its last operation ended, and only then does each cleanup handler run, on
    /// its queue, with 0 or the error that ended the descriptor. Made from a closed channel, it holds nothing: its
    /// cleanup handler runs at once with `ECANCELED`, and so do its operations end. Cost: a block on the channel's
    /// queue.
    func makeChannel(
        label: String, kind: IOChannelKind, queue: Queue, cleanup: @escaping @Sendable (_ error: Int32) -> Void
    ) -> Self

    /// Runs `block` once every operation issued before it has ended and before any issued after it begins, when
    /// the channel's descriptor is the block's alone (`dispatch_io_barrier`).
    func barrier(_ block: @escaping @Sendable () -> Void)

    /// Closes the channel: operations issued afterwards end at once with `ECANCELED`. With `stop`, operations
    /// still pending or under way end too, with `ECANCELED`; without it, they run to their end first. Once the last
    /// has ended, the cleanup handler runs. A stop after a plain close still stops; other repeats do nothing.
    func close(stop: Bool)
}
