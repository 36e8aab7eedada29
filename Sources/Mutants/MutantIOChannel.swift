import ArenaContract
import Contenders
import Glibc
import Harness

/// A channel of the base engine with the engine's I/O fault applied: every call forwards to the base channel, and
/// the fault changes what goes in or what comes back.
final class MutantIOChannel<Base: Engine>: EngineIOChannel, @unchecked Sendable {
    typealias Queue = MutantQueue<Base>
    typealias Data = MutantData<Base>

    let label: String
    private let engine: Base
    private let fault: Fault
    private let kind: IOChannelKind
    /// The base channel; nil under `pathOpenedEagerly` when the eager open failed (`openError`).
    private let base: Base.IOChannel?
    private let openError: Int32
    /// The descriptor the channel was made on (-1 for a path), which `sharedChannelDuplicates` duplicates.
    private let descriptor: Int32
    private let cleanup: @Sendable (Int32) -> Void
    private let cleanupQueue: Base.Queue
    private let closedOnce = Locked(false)
    /// Under `writesWaitForReads`: reads under way, and the writes waiting for them to end.
    private let readsUnderWay = Locked<(count: Int, waiting: [@Sendable () -> Void])>((0, []))

    init(
        engine: Base, fault: Fault, label: String, kind: IOChannelKind, fileDescriptor: Int32, queue: MutantQueue<Base>,
        cleanup: @escaping @Sendable (Int32) -> Void
    ) {
        (self.engine, self.fault, self.label, self.kind, self.cleanup) = (engine, fault, label, kind, cleanup)
        cleanupQueue = queue.base
        openError = 0
        descriptor = fileDescriptor
        base = engine.makeIOChannel(
            label: label, kind: kind, fileDescriptor: fileDescriptor, queue: queue.base,
            cleanup: Self.cleanupHandler(fault, cleanup))
    }

    init(
        engine: Base, fault: Fault, label: String, kind: IOChannelKind, path: String, flags: Int32, mode: UInt32,
        queue: MutantQueue<Base>, cleanup: @escaping @Sendable (Int32) -> Void
    ) {
        (self.engine, self.fault, self.label, self.kind, self.cleanup) = (engine, fault, label, kind, cleanup)
        cleanupQueue = queue.base
        descriptor = -1
        guard fault == .pathOpenedEagerly else {
            openError = 0
            base = engine.makeIOChannel(
                label: label, kind: kind, path: path, flags: flags, mode: mode, queue: queue.base,
                cleanup: Self.cleanupHandler(fault, cleanup))
            return
        }
        let descriptor = open(path, flags | O_CLOEXEC, mode_t(mode))
        openError = descriptor < 0 ? errno : 0
        base =
            descriptor < 0
            ? nil
            : engine.makeIOChannel(label: label, kind: kind, fileDescriptor: descriptor, queue: queue.base) { error in
                Glibc.close(descriptor)
                cleanup(error)
            }
    }

    /// A channel made from `other`: the base channel's own, or under `sharedChannelDuplicates` a channel of the base
    /// engine on a duplicate of `other`'s descriptor, closed by its cleanup handler.
    private init(
        sharing other: MutantIOChannel<Base>, label: String, kind: IOChannelKind, queue: MutantQueue<Base>,
        cleanup: @escaping @Sendable (Int32) -> Void
    ) {
        (engine, fault, self.label, self.kind, self.cleanup) = (other.engine, other.fault, label, kind, cleanup)
        cleanupQueue = queue.base
        openError = other.openError
        descriptor = other.descriptor
        if fault == .sharedChannelDuplicates && other.descriptor >= 0 {
            let copy = dup(other.descriptor)
            base = engine.makeIOChannel(label: label, kind: kind, fileDescriptor: copy, queue: queue.base) { error in
                Glibc.close(copy)
                cleanup(error)
            }
        } else {
            base = other.base?.makeChannel(label: label, kind: kind, queue: queue.base, cleanup: Self.cleanupHandler(fault, cleanup))
        }
    }

    /// The cleanup handler given to the base channel: dropped under `cleanupEarly`, which runs it at close instead.
    private static func cleanupHandler(_ fault: Fault, _ cleanup: @escaping @Sendable (Int32) -> Void) -> @Sendable (Int32) -> Void {
        if fault == .cleanupEarly { return { _ in } }
        return cleanup
    }

    /// Ends an operation of a channel whose eager open failed, with the open error.
    private func failAtOnce(on queue: MutantQueue<Base>, _ handler: @escaping IOHandler<MutantData<Base>>, data: MutantData<Base>?) {
        let error = openError
        queue.base.async { handler(true, data, error) }
    }

    private func wrap(_ data: Base.Data) -> MutantData<Base> { MutantData(data, engine: engine, fault: fault) }

    func read(offset: Int64, length: Int, queue: MutantQueue<Base>, _ handler: @escaping IOHandler<MutantData<Base>>) {
        guard let base else { return failAtOnce(on: queue, handler, data: nil) }
        let offset = fault == .randomOffsetIgnored && kind == .randomAccess ? 0 : offset
        let firstBytes = Locked(true)
        if fault == .writesWaitForReads { readsUnderWay.withLock { $0.count += 1 } }
        base.read(offset: offset, length: length, queue: queue.base) { [self] done, data, error in
            var data = data
            if fault == .readLosesFirstByte, let bytes = data, bytes.count > 0,
                firstBytes.withLock({ first in
                    defer { first = false }
                    return first
                })
            {
                data = bytes.subdata(1..<bytes.count)
            }
            handler(done, data.map(wrap), error)
            if done && fault == .writesWaitForReads {
                let waiting = readsUnderWay.withLock { state -> [@Sendable () -> Void] in
                    state.count -= 1
                    guard state.count == 0 else { return [] }
                    defer { state.waiting = [] }
                    return state.waiting
                }
                waiting.forEach { $0() }
            }
        }
    }

    func write(offset: Int64, data: MutantData<Base>, queue: MutantQueue<Base>, _ handler: @escaping IOHandler<MutantData<Base>>) {
        guard let base else { return failAtOnce(on: queue, handler, data: data) }
        let offset = fault == .randomOffsetIgnored && kind == .randomAccess ? 0 : offset
        var bytes = data.base
        if fault == .writeCorruptsLastByte && bytes.count > 0 {
            var changed = bytes.bytes
            changed[changed.count - 1] ^= 0xFF
            bytes = changed.withUnsafeBytes { engine.makeData(copying: $0) }
        }
        let submit: @Sendable () -> Void = { [self, bytes] in
            base.write(offset: offset, data: bytes, queue: queue.base) { [self] done, rest, error in handler(done, rest.map(wrap), error) }
        }
        if fault == .writesWaitForReads {
            let now = readsUnderWay.withLock { state in
                if state.count == 0 { return true }
                state.waiting.append(submit)
                return false
            }
            if now { submit() }
        } else {
            submit()
        }
    }

    func setLowWater(_ bytes: Int) { base?.setLowWater(fault == .lowWaterOne ? 1 : bytes) }

    func setHighWater(_ bytes: Int) { if fault != .highWaterIgnored { base?.setHighWater(bytes) } }

    func setInterval(_ interval: Duration, strict: Bool) { if fault != .intervalIgnored { base?.setInterval(interval, strict: strict) } }

    func makeChannel(
        label: String, kind: IOChannelKind, queue: MutantQueue<Base>, cleanup: @escaping @Sendable (Int32) -> Void
    ) -> MutantIOChannel<Base> {
        MutantIOChannel(sharing: self, label: label, kind: kind, queue: queue, cleanup: cleanup)
    }

    func barrier(_ block: @escaping @Sendable () -> Void) {
        if fault == .channelBarrierEarly { return engine.globalQueue.async(block) }
        base?.barrier(block)
    }

    func close(stop: Bool) {
        let first = closedOnce.withLock { closed in
            defer { closed = true }
            return !closed
        }
        if first && (fault == .cleanupEarly || base == nil) { cleanupQueue.async { [self] in cleanup(openError) } }
        switch fault {
        case .stopIgnored: base?.close(stop: false)
        case .closeStops: base?.close(stop: true)
        default: base?.close(stop: stop)
        }
    }
}
