/// A quality-of-service class: how urgent a block's work is to the user (`DispatchQoS.QoSClass`, `qos_class_t`).
///
/// Classes are ordered from least to most urgent. A queue may be created with one; a queue without one runs at its
/// target's; a work item may carry one, which applies as `WorkItemFlags` say. What a class changes is the engine's
/// business (libdispatch on Linux runs each class on threads of its own, at a nice value of its own); the rules check
/// the class a block runs at (`Engine.currentQoS`) and, behind `priority-scheduling`, the order under load.
public enum QoSClass: String, CaseIterable, Sendable, Codable, Comparable {
    /// Work the user does not see (indexing, backups).
    case background
    /// Long work the user follows loosely (downloads, imports).
    case utility
    /// The class of work that names none.
    case `default`
    /// Work the user waits for (opening a document).
    case userInitiated = "user-initiated"
    /// Work the user is interacting with (animations, event handling).
    case userInteractive = "user-interactive"

    /// The position in the order, least urgent first.
    @inlinable public var rank: Int {
        switch self {
        case .background: 0
        case .utility: 1
        case .default: 2
        case .userInitiated: 3
        case .userInteractive: 4
        }
    }

    @inlinable public static func < (lhs: QoSClass, rhs: QoSClass) -> Bool { lhs.rank < rhs.rank }

    /// The class a block runs at, by block.h's rules, given `queue` (the class of the queue that runs it: its own, or
    /// inherited through its targets; `nil` when no queue along the chain has one) and the work item's class, if the
    /// block is one with a class. An item that `enforced` its class runs at it unless the queue's is higher; one that
    /// did not runs at the queue's class, or at its own when the queue has none. Without either: `.default`. O(1).
    @inlinable
    public static func effective(queue: QoSClass?, item: QoSClass?, enforced: Bool) -> QoSClass {
        guard let item else { return queue ?? .default }
        guard let queue else { return item }
        return enforced ? Swift.max(item, queue) : queue
    }
}
