import ArenaContract

/// A generated program on an operation-queue layer (`OperationLayer`): the queues and operations it makes up front,
/// then the script, one call a step (`OperationCall`), each run to quiescence (`OperationModel`). Made by
/// `OperationGenerator` from a seed; run and checked by `OperationRun`.
public struct OperationProgram: Sendable, CustomStringConvertible {
    /// `maxConcurrentOperationCount` left to the layer (`LayerQueue.unlimited`).
    public static let unlimited = Int.max

    /// The queue the drain adds what is left to (`OperationRun.drain`), after the program's own: unlimited, running,
    /// and named by no call, so no barrier ever waits there.
    static let drainQueue = QueueSpec(width: unlimited, suspended: false, pinned: false)

    /// A queue made up front.
    public struct QueueSpec: Sendable, Equatable {
        /// `maxConcurrentOperationCount` (`unlimited` or 1…3).
        public var width: Int
        public var suspended: Bool
        /// Whether its `underlyingQueue` is a serial dispatch queue of the engine; its width stays 1.
        public var pinned: Bool
    }

    /// What an operation is made as.
    public enum Kind: String, Sendable {
        /// `makeBlockOperation`, perhaps with execution blocks added before it is enqueued.
        case block
        /// `makeOperation`: a `main` body given the operation.
        case main
        /// `makeAsynchronousOperation`: executing from `start` until its `finish` is called.
        case async
        /// A barrier block (`addBarrierBlock`), made by the call that adds it.
        case barrier
    }

    /// An operation made up front.
    public struct Op: Sendable, Equatable {
        public var kind: Kind
        /// Whether its body waits for the script's `release` (an asynchronous one: whether its `finish` waits for it).
        public var held: Bool
        public var priority: OperationPriority
        /// Whether it has a completion block (set before it is enqueued).
        public var completion: Bool
        /// Execution blocks added to a block operation before it is enqueued.
        public var extraBlocks: Int
    }

    public var queues: [QueueSpec]
    public var ops: [Op]
    var calls: [any OperationCall]

    public var description: String {
        var lines = queues.enumerated().map { index, queue in
            let width = queue.width == Self.unlimited ? "unlimited" : "\(queue.width)"
            return "q\(index): width \(width)\(queue.suspended ? ", suspended" : "")\(queue.pinned ? ", on a serial underlying queue" : "")"
        }
        lines += ops.enumerated().map { index, op in
            var traits = [op.kind.rawValue]
            if op.held { traits.append("held") }
            if op.priority != .normal { traits.append("priority \(op.priority)") }
            if op.completion { traits.append("completion block") }
            if op.extraBlocks > 0 { traits.append("\(op.extraBlocks) more execution blocks") }
            return "op\(index): " + traits.joined(separator: ", ")
        }
        lines += calls.enumerated().map { "\($0): \($1)" }
        lines.append("then the drain: " + OperationRun.drain.map(\.description).joined(separator: "; "))
        return lines.joined(separator: "\n")
    }
}

/// One call of the operation-queue contract a program can make, declared once: how the generator proposes it, what
/// it does to the model and what the model says it must observe, and how it is made on a layer. A new operation of
/// the contract is one type conforming to this, listed in `OperationCalls.all`.
protocol OperationCall: Sendable, CustomStringConvertible {
    /// The call's name in the reach matrix.
    static var name: String { get }
    /// Whether it may be made from inside an operation's body (the body of a held operation, as it is released),
    /// besides from the script's thread.
    static var inside: Bool { get }
    /// A call of this kind that the model allows in its present state, or nil.
    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> Self?
    /// Applies the call to the model (between `begin` and `settle`): what the run must observe, if it observes
    /// anything. Throws when the model's state does not allow the call (after shrinking, say).
    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String?
    /// The operation the call acts on, if it acts on one (the reach matrix counts the calls by its stage).
    var target: Int? { get }
    /// Makes the call on `world`'s layer: what it observed (compared with what `apply` returned), or nil. A read may
    /// poll until it sees `expected`, for a bounded time: a layer may publish a finish before it updates its lists.
    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String?
}

extension OperationCall {
    static var inside: Bool { false }
    var target: Int? { nil }
}

/// Why the model refused a call: its state does not allow it.
struct OperationCallRefused: Error, Sendable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
