// The default one-shot reads and writes (dispatch_read, dispatch_write) of an engine without its own: one stream
// channel of the engine's per call.

extension Engine {
    /// `dispatch_read` on the engine's own channel: a stream channel over the descriptor (which it leaves open), one
    /// read gathered into one buffer, a plain close once it ended.
    public func read(
        fileDescriptor: Int32, length: Int, queue: Queue, _ handler: @escaping @Sendable (_ data: Data, _ error: Int32) -> Void
    ) {
        let channel = makeIOChannel(label: "read(\(fileDescriptor))", kind: .stream, fileDescriptor: fileDescriptor, queue: queue) { _ in }
        let gathered = OneShotData<Data>(makeData(copying: UnsafeRawBufferPointer(start: nil, count: 0)))
        channel.read(offset: 0, length: length, queue: queue) { done, data, error in
            if let data { gathered.append(data) }
            guard done else { return }
            channel.close(stop: false)
            handler(gathered.take(), error)
        }
    }

    /// `dispatch_write` on the engine's own channel: a stream channel over the descriptor (which it leaves open), one
    /// write, a plain close once it ended.
    public func write(
        fileDescriptor: Int32, data: Data, queue: Queue, _ handler: @escaping @Sendable (_ unwritten: Data?, _ error: Int32) -> Void
    ) {
        let channel = makeIOChannel(label: "write(\(fileDescriptor))", kind: .stream, fileDescriptor: fileDescriptor, queue: queue) { _ in }
        channel.write(offset: 0, data: data, queue: queue) { done, unwritten, error in
            guard done else { return }
            channel.close(stop: false)
            handler(error == 0 ? nil : unwritten, error)
        }
    }
}

/// The bytes a one-shot read gathered so far: its handler calls run one at a time, in order, but on the engine's
/// threads, so the buffer sits behind a lock.
private final class OneShotData<D: EngineData>: @unchecked Sendable {
    private let lock = PthreadMutex()
    private var data: D

    init(_ empty: D) { data = empty }

    func append(_ more: D) { lock.withLock { data = data.appending(more) } }
    func take() -> D { lock.withLock { data } }
}
