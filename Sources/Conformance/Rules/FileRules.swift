import ArenaContract
import Glibc
import Harness

/// File sources: writes, growth, attributes, links, renames and deletion of a watched file, and entries of a watched
/// directory.
enum FileRules: RuleFamily {
    static let concept = Concept.files
    static let rules: [any ConformanceRule.Type] = [
        FileWrite.self, FileRename.self, FileDelete.self, FileAttribLink.self, FileDirectoryWrite.self, FileMask.self,
    ]
}

/// Files for the file rules (a failure to make the directory fails the rule with the system call's error).
extension ScratchDirectory {
    /// Creates (or truncates) `name` holding `bytes` bytes.
    @discardableResult
    func create(_ name: String, bytes: Int = 1) throws -> String {
        let path = file(name)
        let descriptor = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw RuleFailure(.setup, "cannot create \(path): errno \(errno)") }
        defer { close(descriptor) }
        let contents = [UInt8](repeating: 0x61, count: bytes)
        guard write(descriptor, contents, bytes) == bytes else {
            throw RuleFailure(.setup, "cannot write \(path): errno \(errno)")
        }
        return path
    }
}

/// Opens `path` for watching only (read-only, as O_EVTONLY would on Darwin).
private func openForWatching(_ path: String, directory: Bool = false) throws -> Int32 {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0))
    guard descriptor >= 0 else { throw RuleFailure(.setup, "cannot open \(path): errno \(errno)") }
    return descriptor
}

/// A file source on `descriptor` asking for `events`, logging the data of every handler call; activated, and
/// returned once its registration handler ran (from then on it is watching).
private func watchFile<E: Engine>(
    _ engine: E, _ descriptor: Int32, _ events: FileEvents,
    label: String
) throws -> (source: E.FileSource, calls: Recorder<UInt>) {
    let source = engine.makeFileSource(
        label: label, fileDescriptor: descriptor, events: events,
        queue: engine.makeQueue(label: label))
    return (source, try activateRecording(source, label: label))
}

extension Recorder where Element == UInt {
    /// The events of the calls after the first `from`, ORed.
    func events(from start: Int = 0) -> FileEvents {
        FileEvents(rawValue: elements.dropFirst(start).reduce(0, |))
    }

    /// Waits (bounded) for a call after the first `start` whose events include `wanted`; returns the events of the
    /// calls after `start`, ORed.
    func awaitEvents(_ wanted: FileEvents, after start: Int, _ what: String) throws -> FileEvents {
        try expectEventually("\(what) being reported \(wanted) (seen \(events(from: start)))") {
            events(from: start).isSuperset(of: wanted)
        }
        return events(from: start)
    }
}

enum FileWrite: BehaviourRule {
    static let id = "vnode.write"
    static let title = "A file source reports a write to the file as [write], and a write that makes it longer as [write, extend]."
    static let source =
        "dispatch/source.h: DISPATCH_VNODE_WRITE 'The filesystem object data changed', DISPATCH_VNODE_EXTEND 'The filesystem object changed in size'; [objc.io #2], 'Watching Files'"
    static let needs: Set<Capability> = [.fileSources]

    static let forbidden: [Outcome] = [.missing, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let directory = try ScratchDirectory("vnode.write")
        defer { directory.remove() }
        let path = try directory.create("file", bytes: 4)
        let writer = open(path, O_WRONLY | O_CLOEXEC)
        defer { close(writer) }
        let watched = try openForWatching(path)
        defer { close(watched) }
        let (source, calls) = try watchFile(engine, watched, [.write, .extend], label: "arena.vnode.write")
        defer { cancelAndDrain(source) }

        _ = pwrite(writer, "b", 1, 0)  // in place: the size stays 4
        let inPlace = try calls.awaitEvents(.write, after: 0, "a write in place")
        try expect(inPlace == .write, .wrongValue, "a write in place was reported \(inPlace), not [write]")
        Timing.pause(Timing.quietPeriod)  // the in-place write's report is complete before the next write
        let before = calls.count
        _ = pwrite(writer, "tail", 4, 4)  // past the end: the size grows to 8
        let growing = try calls.awaitEvents([.write, .extend], after: before, "a write growing the file")
        try expect(
            growing == [.write, .extend], .wrongValue,
            "a write growing the file was reported \(growing), not [write, extend]")
    }
}

enum FileRename: BehaviourRule {
    static let id = "vnode.rename"
    static let title =
        "Every rename of a watched file is reported: a hundred times, a fresh source on the file, its registration handler awaited, one rename, [rename] reported."
    static let source =
        "libdispatch tests/dispatch_vnode.c ('Dispatch VNODE RENAME'): a new DISPATCH_VNODE_RENAME source per iteration, its registration handler awaited, then one rename; notifications must equal iterations"
    static let needs: Set<Capability> = [.fileSources]
    static let iterations = 100

    static let forbidden: [Outcome] = [.missing, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let directory = try ScratchDirectory("vnode.rename")
        defer { directory.remove() }
        var (current, other) = (try directory.create("one"), directory.file("two"))
        for iteration in 0..<iterations {
            let watched = try openForWatching(current)
            defer { close(watched) }
            let (source, calls) = try watchFile(engine, watched, .rename, label: "arena.vnode.rename")
            defer { cancelAndDrain(source) }
            guard rename(current, other) == 0 else { throw RuleFailure(.setup, "rename failed: errno \(errno)") }
            swap(&current, &other)
            let seen = try calls.awaitEvents(.rename, after: 0, "rename \(iteration + 1) of \(iterations)")
            try expect(seen == .rename, .wrongValue, "rename \(iteration + 1) was reported \(seen), not [rename]")
        }
    }
}

enum FileDelete: BehaviourRule {
    static let id = "vnode.delete"
    static let title =
        "Unlinking a watched file (open, as the source's owner holds it) reports [delete]; the descriptor is still open in the cancel handler, which closes it."
    static let source =
        "dispatch/source.h: DISPATCH_VNODE_DELETE 'The filesystem object was deleted from the namespace'; [objc.io #2], 'Watching Files' (close(fd) in the cancel handler; 'You should probably always add DISPATCH_VNODE_DELETE')"
    static let needs: Set<Capability> = [.fileSources]

    static let forbidden: [Outcome] = [.missing, .early, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let directory = try ScratchDirectory("vnode.delete")
        defer { directory.remove() }
        let path = try directory.create("file")
        let watched = try openForWatching(path)
        let (source, calls) = try watchFile(engine, watched, [.delete, .write], label: "arena.vnode.delete")
        let openInCancel = Counter()
        let cancelled = Latch()
        source.setCancelHandler {
            if fcntl(watched, F_GETFD) != -1 { openInCancel.add() }
            close(watched)
            cancelled.countDown()
        }
        unlink(path)
        let seen = Result { try calls.awaitEvents(.delete, after: 0, "unlinking the file") }
        source.cancel()
        try expectOpens(cancelled, "the cancel handler")
        let events = try seen.get()
        try expect(events == .delete, .wrongValue, "unlinking the file was reported \(events), not [delete]")
        try expect(openInCancel.value == 1, .early, "the descriptor was already closed when the cancel handler ran")
    }
}

enum FileAttribLink: BehaviourRule {
    static let id = "vnode.attrib-link"
    static let title =
        "A file source reports a change of mode as [attrib], and a new hard link to the file as link (its link count changed)."
    static let source =
        "dispatch/source.h: DISPATCH_VNODE_ATTRIB 'The filesystem object metadata changed', DISPATCH_VNODE_LINK 'The filesystem object link count changed'"
    static let needs: Set<Capability> = [.fileSources]

    static let forbidden: [Outcome] = [.missing, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let directory = try ScratchDirectory("vnode.attrib-link")
        defer { directory.remove() }
        let path = try directory.create("file")
        let watched = try openForWatching(path)
        defer { close(watched) }
        let (source, calls) = try watchFile(engine, watched, [.attrib, .link], label: "arena.vnode.attrib-link")
        defer { cancelAndDrain(source) }

        chmod(path, 0o600)
        let mode = try calls.awaitEvents(.attrib, after: 0, "a change of mode")
        try expect(mode == .attrib, .wrongValue, "a change of mode was reported \(mode), not [attrib]")
        Timing.pause(Timing.quietPeriod)
        let before = calls.count
        guard link(path, directory.file("second name")) == 0 else { throw RuleFailure(.setup, "link failed: errno \(errno)") }
        let linked = try calls.awaitEvents(.link, after: before, "a new hard link")
        try expect(linked.contains(.link), .wrongValue, "a new hard link was reported \(linked), without link")
    }
}

enum FileDirectoryWrite: BehaviourRule {
    static let id = "vnode.directory-write"
    static let title =
        "A file source on a directory (a watch folder) reports [write] when an entry is created, renamed or removed in it, and nothing when an entry's contents change."
    static let source =
        "[objc.io #2], 'Watching Files': a DISPATCH_VNODE_WRITE | DISPATCH_VNODE_DELETE source on a directory, 'The directory changed'; kqueue(2) NOTE_WRITE: 'a write occurred on the file referenced by the descriptor' (a directory's contents are its entries)"
    static let needs: Set<Capability> = [.fileSources]

    static let forbidden: [Outcome] = [.missing, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let directory = try ScratchDirectory("vnode.directory-write")
        defer { directory.remove() }
        let watched = try openForWatching(directory.path, directory: true)
        defer { close(watched) }
        let (source, calls) = try watchFile(engine, watched, [.write, .delete], label: "arena.vnode.directory-write")
        defer { cancelAndDrain(source) }

        let path = try directory.create("entry")
        let created = try calls.awaitEvents(.write, after: 0, "an entry created")
        try expect(created == .write, .wrongValue, "an entry created was reported \(created), not [write]")
        Timing.pause(Timing.quietPeriod)
        var before = calls.count
        let writer = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        _ = write(writer, "more", 4)
        close(writer)
        Timing.pause(Timing.quietPeriod)
        try expect(
            calls.count == before, .wrongValue,
            "writing into an entry was reported \(calls.events(from: before)) on the directory")
        for (what, change) in [
            ("an entry renamed", { rename(path, directory.file("renamed")) }),
            ("an entry removed", { unlink(directory.file("renamed")) }),
        ] {
            before = calls.count
            guard change() == 0 else { throw RuleFailure(.setup, "\(what): errno \(errno)") }
            let seen = try calls.awaitEvents(.write, after: before, what)
            try expect(seen == .write, .wrongValue, "\(what) was reported \(seen), not [write]")
            Timing.pause(Timing.quietPeriod)
        }
    }
}

enum FileMask: BehaviourRule {
    static let id = "vnode.mask"
    static let title =
        "A file source reports only the events asked for: one asking for rename stays quiet through writes and a change of mode, then reports the rename as [rename]."
    static let source =
        "dispatch/source.h: DISPATCH_SOURCE_TYPE_VNODE 'The mask is a mask of desired events from dispatch_source_vnode_flags_t'; dispatch_source_get_data: for DISPATCH_SOURCE_TYPE_VNODE, 'dispatch_source_vnode_flags_t'"
    static let needs: Set<Capability> = [.fileSources]

    static let forbidden: [Outcome] = [.missing, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let directory = try ScratchDirectory("vnode.mask")
        defer { directory.remove() }
        let path = try directory.create("file")
        let watched = try openForWatching(path)
        defer { close(watched) }
        let (source, calls) = try watchFile(engine, watched, .rename, label: "arena.vnode.mask")
        defer { cancelAndDrain(source) }

        let writer = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        _ = write(writer, "more", 4)
        close(writer)
        chmod(path, 0o600)
        Timing.pause(Timing.quietPeriod)
        try expect(
            calls.count == 0, .wrongValue,
            "a source asking for rename reported \(calls.events()) for a write and a change of mode")
        guard rename(path, directory.file("renamed")) == 0 else { throw RuleFailure(.setup, "rename failed: errno \(errno)") }
        let seen = try calls.awaitEvents(.rename, after: 0, "the rename")
        try expect(seen == .rename, .wrongValue, "the rename was reported \(seen), not [rename]")
    }
}
