import ArenaContract
import Glibc

/// One inotify instance watching one file or directory for an engine's file source, and the decoding of what it
/// reports into `FileEvents` (neutral plumbing: the engines differ in how a report becomes a handler call).
///
/// The watch is made when the source is made, on `/proc/self/fd/N` of a duplicate of the caller's descriptor: the
/// kernel resolves that link to the open file itself, whatever its name is now, and the duplicate lets the engine
/// `fstat` it without depending on the caller's descriptor, which the caller may close in the cancel handler.
/// Events before activation wait in the inotify queue and are reported at activation; events after the
/// registration handler ran are never missed.
///
/// inotify says less than kqueue, so `collect` compares an `fstat` snapshot with the previous one: a change of
/// size makes a write an `extend`, a changed link count makes an attribute change a `link`, and a link count of
/// zero is a `delete` (inotify's own IN_DELETE_SELF waits until no descriptor holds the file open, and the source's
/// owner always holds one). On a directory, entries created, removed or renamed in it are a `write`, as kqueue
/// reports them. Costs two descriptors and an inotify instance (128 per user by default) until `close`.
final class FileWatch: @unchecked Sendable {
    /// The events asked for; `collect` reports no others.
    let events: FileEvents
    private let isDirectory: Bool
    private let lock = PthreadMutex()
    // Guarded by `lock`; -1 once closed, or when the watch could not be made (then nothing is ever reported):
    private var notifications: Int32
    private var file: Int32
    private var last: Snapshot

    /// What `collect` compares between two reports.
    private struct Snapshot {
        var size = 0, links = 0
        var mode: UInt32 = 0, owner: UInt32 = 0, group: UInt32 = 0
        var modified = timespec()

        init() {}

        init(_ descriptor: Int32) {
            var status = stat()
            guard fstat(descriptor, &status) == 0 else { return }
            size = Int(status.st_size)
            links = Int(status.st_nlink)
            (mode, owner, group) = (status.st_mode, status.st_uid, status.st_gid)
            modified = status.st_mtim
        }

        /// Whether the mode, the owner or the modification time differs (an attribute change beside a link).
        func metadataDiffers(from other: Snapshot) -> Bool {
            mode != other.mode || owner != other.owner || group != other.group
                || modified.tv_sec != other.modified.tv_sec || modified.tv_nsec != other.modified.tv_nsec
        }
    }

    /// Events on the watched object itself.
    private static let ownEvents = UInt32(IN_MODIFY | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF)
    /// Events on a directory's entries.
    private static let entryEvents = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)

    init(fileDescriptor: Int32, events: FileEvents) {
        self.events = events
        file = fcntl(fileDescriptor, F_DUPFD_CLOEXEC, 0)
        notifications = file < 0 ? -1 : inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        var status = stat()
        isDirectory = file >= 0 && fstat(file, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
        last = file < 0 ? Snapshot() : Snapshot(file)
        guard notifications >= 0 else {
            closeAll()
            return
        }
        // A directory's own IN_MODIFY never comes; its entries' would, for every write into them: not asked.
        let mask = isDirectory ? Self.ownEvents & ~UInt32(IN_MODIFY) | Self.entryEvents : Self.ownEvents
        if inotify_add_watch(notifications, "/proc/self/fd/\(file)", mask) < 0 { closeAll() }
    }

    deinit { closeAll() }

    /// Registers the inotify descriptor with `reactor`, unarmed (the reactor watches a duplicate); 0 once closed or
    /// when the watch could not be made. Under the watch's lock, so a `close` meanwhile cannot hand the reactor a
    /// reused number.
    func register(_ listener: any ReadinessListener, with reactor: EpollReactor) -> UInt64 {
        lock.withLock { notifications < 0 ? 0 : reactor.register(listener, descriptor: notifications, writable: false) }
    }

    /// Reads every pending notification and returns what they mean, restricted to the events asked for; empty when
    /// there is nothing to report. Never blocks.
    func collect() -> FileEvents {
        lock.withLock {
            guard notifications >= 0 else { return [] }
            var own: UInt32 = 0
            var entries = false
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(notifications, $0.baseAddress, $0.count) }
                if count <= 0 { break }  // EAGAIN: drained
                buffer.withUnsafeBytes { bytes in
                    var offset = 0
                    // struct inotify_event: wd, mask, cookie, len (4 bytes each), then `len` bytes of name.
                    while offset + 16 <= count {
                        let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                        let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                            own |= UInt32(IN_MODIFY | IN_ATTRIB)  // events were lost: let the snapshot tell
                            entries = isDirectory
                        } else if length == 0 {
                            own |= mask
                        } else if mask & Self.entryEvents != 0 {
                            entries = true
                        }
                        offset += 16 + length
                    }
                }
            }
            let now = Snapshot(file)
            defer { last = now }
            return Self.decode(own: own, entries: entries, now: now, before: last).intersection(events)
        }
    }

    /// What inotify's `own` events and the snapshots mean in kqueue's terms.
    private static func decode(own: UInt32, entries: Bool, now: Snapshot, before: Snapshot) -> FileEvents {
        var seen: FileEvents = []
        if own & UInt32(IN_MODIFY) != 0 {
            seen.insert(.write)
            if now.size > before.size { seen.insert(.extend) }
        }
        if entries { seen.insert(.write) }
        if own & UInt32(IN_ATTRIB) != 0 {
            let relinked = now.links != before.links
            if relinked { seen.insert(.link) }
            if !relinked || now.metadataDiffers(from: before) { seen.insert(.attrib) }
            if now.links == 0 && before.links != 0 { seen.insert(.delete) }
        }
        if own & UInt32(IN_DELETE_SELF) != 0 { seen.insert(.delete) }
        if own & UInt32(IN_MOVE_SELF) != 0 { seen.insert(.rename) }
        return seen
    }

    /// Stops watching and closes both descriptors; later reports are empty and `register` returns 0.
    func close() { lock.withLock { closeAll() } }

    private func closeAll() {
        if notifications >= 0 { Glibc.close(notifications) }
        if file >= 0 { Glibc.close(file) }
        (notifications, file) = (-1, -1)
    }
}
