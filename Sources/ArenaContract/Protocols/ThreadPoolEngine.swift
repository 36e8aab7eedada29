/// An engine that owns its threads (a worker pool, timer and reactor threads), and can stop them.
public protocol ThreadPoolEngine: Engine {
    /// Stops and joins every thread the engine started, after the work already queued ran. Nothing may be
    /// submitted afterwards.
    func shutdown()

    /// Worker threads running now.
    var workerThreads: Int { get }
}
