import ArenaContract

/// The class of the work item the calling thread performs, if it has one: what a home engine's `currentQoS`
/// combines with the class of the queue running it (`QoSClass.effective`). Engine-neutral: a thread performs one
/// item at a time, whoever's it is, and an item performed inside another hides the outer one until it returns.
enum PerformedItemClass {
    /// The class and whether the item enforces it; one per thread.
    final class Slot {
        var qos: QoSClass?
        var enforced = false
    }

    private static let slotIndex: Int32 = 3
    private static let slot = ThreadLocal(index: slotIndex) { Slot() }
    @inline(__always) private static var current: Slot { threadSlotObject(slotIndex, as: Slot.self)?.takeUnretainedValue() ?? slot.current }

    /// Runs `body` as an item of class `qos`; without a class it only runs `body`, so an item without one costs
    /// nothing here.
    @inline(__always)
    static func performing(_ qos: QoSClass?, enforced: Bool, _ body: () -> Void) {
        guard let qos else { return body() }
        let slot = current
        let (outer, outerEnforced) = (slot.qos, slot.enforced)
        (slot.qos, slot.enforced) = (qos, enforced)
        body()
        (slot.qos, slot.enforced) = (outer, outerEnforced)
    }

    /// The class a block of `queueClass` runs at on the calling thread, with the item it performs if any (one
    /// thread-local load).
    static func effective(queue queueClass: QoSClass?) -> QoSClass {
        let slot = current
        return QoSClass.effective(queue: queueClass, item: slot.qos, enforced: slot.enforced)
    }
}
