/// A system call that failed: its name and errno.
public struct SystemCallError: Error, Sendable, CustomStringConvertible {
    public let call: String
    public let number: Int32

    public init(_ call: String, _ number: Int32) { (self.call, self.number) = (call, number) }

    public var description: String { "\(call) failed: errno \(number)" }
}
