// README: libdispatch on Linux has no user-interactive root queue and ignores a work item's own QoS class.
// DispatchQueue.global(qos: .userInteractive) is the user-initiated root queue, and a block's class (flagged
// .enforceQoS or not) changes nothing about the thread it runs on. Classes are told apart only by the worker
// threads' nice value, which this program reads with getpriority(2) inside each block.
// Run:
//   swiftc -O findings/dispatch-qos-linux/main.swift -o /tmp/qos && /tmp/qos
// Correct behaviour (Apple, DispatchQoS.QoSClass and dispatch_queue_global(3)/qos_class_t: five distinct classes,
// user-interactive the highest; DispatchWorkItemFlags.enforceQoS: "Prefer the quality-of-service class associated
// with the block"): the user-interactive global queue is its own queue and runs ahead of user-initiated, and a
// user-initiated block flagged enforceQoS on the utility queue runs at user-initiated, not utility.
import Dispatch
import Foundation

setvbuf(stdout, nil, _IOLBF, 0)

func nice() -> Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }

func niceOf(_ queue: DispatchQueue, flags: DispatchWorkItemFlags = [], qos: DispatchQoS = .unspecified) -> Int32 {
    let done = DispatchSemaphore(value: 0)
    final class Box: @unchecked Sendable { var value: Int32 = 99 }
    let box = Box()
    queue.async(group: nil, qos: qos, flags: flags) {
        box.value = nice()
        done.signal()
    }
    guard done.wait(timeout: .now() + 5) == .success else { return 99 }
    return box.value
}

let classes: [(String, DispatchQoS.QoSClass)] = [
    ("background", .background), ("utility", .utility), ("default", .default),
    ("userInitiated", .userInitiated), ("userInteractive", .userInteractive),
]
print("global queues: label, and the nice value of the thread running a block")
for (name, qos) in classes {
    let queue = DispatchQueue.global(qos: qos)
    print("  .global(qos: .\(name)): label \(queue.label), nice \(niceOf(queue))")
}
let interactive = DispatchQueue.global(qos: .userInteractive)
let initiated = DispatchQueue.global(qos: .userInitiated)
print("  .global(qos: .userInteractive) has the label of .global(qos: .userInitiated): \(interactive.label == initiated.label)")

print("created queues: the nice value of the thread running a block")
for (name, qos) in classes {
    let queue = DispatchQueue(label: "created.\(name)", qos: DispatchQoS(qosClass: qos, relativePriority: 0))
    print("  DispatchQueue(label:qos: .\(name)): nice \(niceOf(queue))")
}

print("work items of class user-initiated: the nice value of the thread running each")
let utility = DispatchQueue.global(qos: .utility)
let plain = DispatchQueue(label: "no-class")
let trials = 20
for (queueName, queue) in [("global utility queue", utility), ("queue without a class", plain)] {
    for (flagName, flags) in [("no flag", DispatchWorkItemFlags()), (".enforceQoS", .enforceQoS)] {
        var seen: [Int32: Int] = [:]
        for _ in 0..<trials { seen[niceOf(queue, flags: flags, qos: .userInitiated), default: 0] += 1 }
        let text = seen.sorted { $0.key < $1.key }.map { "nice \($0.key) in \($0.value) of \(trials)" }.joined(separator: ", ")
        print("  on the \(queueName), \(flagName): \(text)")
    }
}
print("(user-initiated threads run at nice \(niceOf(initiated)); a block that kept its class would show that value)")
