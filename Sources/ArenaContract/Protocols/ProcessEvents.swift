/// What a process source reports about the process it watches: a mask of events, with the bit values of
/// `DispatchSource.ProcessEvent` (libdispatch's `DISPATCH_PROC_*`).
///
/// A process source's `data` in its event handler is the bitwise OR of the events seen since the previous call,
/// restricted to the events asked for. On Linux only `exit` can be reported: a pidfd becomes readable when the
/// process exits, but nothing tells another process of a fork, an exec or a delivered signal without tracing it
/// (ptrace) or privileges (the netlink process connector needs CAP_NET_ADMIN). The home engines accept the other
/// bits in a mask and never report them.
public struct ProcessEvents: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The process exited (or had already exited, unreaped or gone, when the source was made); reported once.
    public static let exit = ProcessEvents(rawValue: 0x8000_0000)
    /// The process forked. Not reported on Linux.
    public static let fork = ProcessEvents(rawValue: 0x4000_0000)
    /// The process called one of the exec functions. Not reported on Linux.
    public static let exec = ProcessEvents(rawValue: 0x2000_0000)
    /// A signal was delivered to the process. Not reported on Linux.
    public static let signal = ProcessEvents(rawValue: 0x0800_0000)

    /// Every event.
    public static let all: ProcessEvents = [.exit, .fork, .exec, .signal]

    /// The names of the bits set, for messages (`[exit]`, `[]`); unknown bits in hexadecimal.
    public var description: String {
        let named: [(ProcessEvents, String)] = [(.exit, "exit"), (.fork, "fork"), (.exec, "exec"), (.signal, "signal")]
        return EventNames.describe(rawValue, named.map { ($0.0.rawValue, $0.1) })
    }
}
