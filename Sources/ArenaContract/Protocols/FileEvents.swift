/// What a file source reports about the file or directory it watches: a mask of events, with the bit values of
/// `DispatchSource.FileSystemEvent` (libdispatch's `DISPATCH_VNODE_*`).
///
/// A file source's `data` in its event handler is the bitwise OR of the events seen since the previous call,
/// restricted to the events asked for. On Linux the home engines read them from inotify: `write`, `extend`,
/// `attrib`, `link`, `rename` and `delete` are reported; `revoke` and `funlock` never are (Linux has no `revoke(2)`
/// and inotify does not report lock releases). Deleting a directory is not seen while a descriptor holds it open
/// (the kernel reports it when the last one closes, and the source's owner holds one).
public struct FileEvents: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The file was unlinked (its last name removed, or another file renamed over it).
    public static let delete = FileEvents(rawValue: 0x1)
    /// The file's contents changed; on a directory, an entry was created, removed or renamed in it.
    public static let write = FileEvents(rawValue: 0x2)
    /// The file grew.
    public static let extend = FileEvents(rawValue: 0x4)
    /// The file's metadata changed (mode, owner, times, extended attributes).
    public static let attrib = FileEvents(rawValue: 0x8)
    /// The file's link count changed.
    public static let link = FileEvents(rawValue: 0x10)
    /// The file was renamed.
    public static let rename = FileEvents(rawValue: 0x20)
    /// Access to the file was revoked. Not reported on Linux.
    public static let revoke = FileEvents(rawValue: 0x40)
    /// A lock on the file was released. Not reported on Linux.
    public static let funlock = FileEvents(rawValue: 0x100)

    /// Every event.
    public static let all: FileEvents = [.delete, .write, .extend, .attrib, .link, .rename, .revoke, .funlock]

    /// The names of the bits set, for messages (`[write, extend]`); unknown bits in hexadecimal.
    public var description: String {
        let named: [(FileEvents, String)] = [
            (.delete, "delete"), (.write, "write"), (.extend, "extend"), (.attrib, "attrib"), (.link, "link"),
            (.rename, "rename"), (.revoke, "revoke"), (.funlock, "funlock"),
        ]
        return EventNames.describe(rawValue, named.map { ($0.0.rawValue, $0.1) })
    }
}
