import ArenaContract
import CDispatch
import CLinux
import Synchronization

/// A `dispatch_io_t`, through libdispatch's C API: the channel's reads deliver `dispatch_data_t`, which the Swift
/// overlay would turn into its own `DispatchData`; the C calls hand them to `SystemData` as they are. Every behaviour
/// is libdispatch's (`dispatch_io_create…`, `_create_with_io`, `_read`, `_write`, `_set_low_water`, `_set_interval`,
/// `_barrier`, `_close`).
public final class SystemIOChannel: EngineIOChannel, @unchecked Sendable {
    public let label: String
    private let channel: dispatch_io_t

    init(
        label: String, kind: IOChannelKind, fileDescriptor: Int32, queue: SystemQueue,
        cleanup: @escaping @Sendable (Int32) -> Void
    ) {
        self.label = label
        channel = dispatch_io_create(kind.dispatchType, fileDescriptor, queue.cQueue) { error in cleanup(error) }
    }

    init(
        label: String, kind: IOChannelKind, path: String, flags: Int32, mode: UInt32, queue: SystemQueue,
        cleanup: @escaping @Sendable (Int32) -> Void
    ) {
        self.label = label
        if !path.hasPrefix("/") { misuse("I/O channel '\(label)': path '\(path)' is not absolute") }
        channel = dispatch_io_create_with_path(kind.dispatchType, path, flags, mode_t(mode), queue.cQueue) { error in
            cleanup(error)
        }
    }

    private init(label: String, channel: dispatch_io_t) {
        self.label = label
        self.channel = channel
    }

    deinit { CLinux.dispatch_release(UnsafeMutableRawPointer(channel)) }

    public func read(offset: Int64, length: Int, queue: SystemQueue, _ handler: @escaping IOHandler<SystemData>) {
        dispatch_io_read(channel, off_t(offset), length, queue.cQueue) { done, data, error in
            handler(done, data.map(SystemData.init(borrowing:)), error)
        }
    }

    public func write(offset: Int64, data: SystemData, queue: SystemQueue, _ handler: @escaping IOHandler<SystemData>) {
        dispatch_io_write(channel, off_t(offset), data.object.data, queue.cQueue) { done, remaining, error in
            handler(done, remaining.map(SystemData.init(borrowing:)), error)
        }
    }

    public func setLowWater(_ bytes: Int) { dispatch_io_set_low_water(channel, bytes) }

    public func setHighWater(_ bytes: Int) { dispatch_io_set_high_water(channel, bytes) }

    public func setInterval(_ interval: Duration, strict: Bool) {
        let (seconds, attoseconds) = interval.components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds / 1_000_000_000)
        dispatch_io_set_interval(
            channel, UInt64(nanoseconds), strict ? dispatch_io_interval_flags_t(DISPATCH_IO_STRICT_INTERVAL) : 0)
    }

    public func makeChannel(
        label: String, kind: IOChannelKind, queue: SystemQueue, cleanup: @escaping @Sendable (Int32) -> Void
    ) -> SystemIOChannel {
        SystemIOChannel(
            label: label, channel: dispatch_io_create_with_io(kind.dispatchType, channel, queue.cQueue) { error in cleanup(error) })
    }

    public func barrier(_ block: @escaping @Sendable () -> Void) { dispatch_io_barrier(channel, block) }

    public func close(stop: Bool) { dispatch_io_close(channel, stop ? dispatch_io_close_flags_t(DISPATCH_IO_STOP) : 0) }
}

extension IOChannelKind {
    var dispatchType: dispatch_io_type_t {
        self == .stream ? dispatch_io_type_t(DISPATCH_IO_STREAM) : dispatch_io_type_t(DISPATCH_IO_RANDOM)
    }
}
