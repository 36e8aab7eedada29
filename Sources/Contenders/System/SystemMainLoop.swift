import ArenaContract
import CLinux
import Glibc

/// The system engine's `dispatchMain()`: the process's main thread drains libdispatch's main queue itself, as
/// CoreFoundation's run loop does, instead of calling `dispatch_main()`.
///
/// Why not `dispatch_main()`: on Linux it parks the main thread and lets a worker thread drain the main queue, so its
/// blocks run on whichever worker takes the turn (measured: the thread id varies between blocks) and a `sync` onto the
/// main queue runs on its caller's thread. With the run-loop hooks the main queue stays bound to the main thread:
/// every block runs there, and a `sync` from another queue is handed to it (libdispatch's `sync_on_main` test
/// expects exactly that). The loop sleeps in `poll` on the queue's eventfd; it never spins.
enum SystemMainLoop {
    static func run() -> Never {
        guard clinux_is_main_thread() != 0 else {
            misuse(
                "dispatchMain() called off the process's main thread: engine 'system' drains libdispatch's main queue, which is bound to that thread"
            )
        }
        let handle = _dispatch_get_main_queue_handle_4CF()
        var ready = pollfd(fd: handle, events: Int16(POLLIN), revents: 0)
        while true {
            if poll(&ready, 1, -1) < 0 && errno != EINTR {
                misuse("dispatchMain(): poll on the main queue's eventfd failed (errno \(errno)) in engine 'system'")
            }
            var count: UInt64 = 0
            _ = read(handle, &count, MemoryLayout<UInt64>.size)  // non-blocking: a wake-up with nothing to read is harmless
            _dispatch_main_queue_callback_4CF(nil)
        }
    }
}
