import Foundation
import Harness
import Synchronization
import Testing

@testable import ArenaContract
@testable import Contenders

/// The lock-free engine's data structures under direct stress: every item exactly once, in order where promised.
extension ArenaTests {
    @Suite(.enabled(if: TestEngines.catalogEngines.contains("lockfree"), "lockfree is not in ARENA_ENGINES"))
    struct LockFreeStructureTests {
        final class Log: @unchecked Sendable {
            var seen: [Int] = []
        }

        @Test("Vyukov MPSC: every job once, each producer's jobs in order")
        func mpsc() {
            let queue = VyukovMPSCQueue()
            let producers = 4, perProducer = 20_000
            let log = Log()
            for producer in 0..<producers {
                Threads.detach {
                    for sequence in 0..<perProducer {
                        queue.push(LockFreeJob(.block(.block { log.seen.append(producer * perProducer + sequence) })))
                    }
                }
            }
            var taken = 0
            while taken < producers * perProducer {
                switch queue.pop() {
                case .job(let job):
                    if case .block(let body) = job.work { body.run() }
                    taken += 1
                case .empty, .busy:
                    continue  // producers are still at it
                }
            }
            #expect(log.seen.count == producers * perProducer)
            var next = [Int](repeating: 0, count: producers)
            var inOrder = true
            for value in log.seen {
                let producer = value / perProducer
                if value % perProducer != next[producer] { inOrder = false }
                next[producer] += 1
            }
            #expect(inOrder, "a producer's jobs were taken out of order")
            #expect(next == [Int](repeating: perProducer, count: producers))
        }

        @Test("injection queue (bounded MPMC): every job exactly once across producers and consumers")
        func injection() {
            let queue = InjectionQueue()
            let producers = 4, consumers = 3, perProducer = 25_000
            let total = producers * perProducer
            let hitsPointer = UnsafeMutablePointer<Atomic<Int>>.allocate(capacity: total)
            for index in 0..<total { (hitsPointer + index).initialize(to: Atomic(0)) }
            defer { hitsPointer.deinitialize(count: total); hitsPointer.deallocate() }
            nonisolated(unsafe) let counts = hitsPointer
            let consumed = Atomic<Int>(0)
            let done = DispatchGroup()
            for producer in 0..<producers {
                done.enter()
                Threads.detach {
                    for sequence in 0..<perProducer {
                        let job = LockFreeJob(.task {})
                        job.work = .task { counts[producer * perProducer + sequence].add(1, ordering: .relaxed) }
                        queue.push(job.retainedPointer())
                    }
                    done.leave()
                }
            }
            for _ in 0..<consumers {
                done.enter()
                Threads.detach {
                    while consumed.load(ordering: .relaxed) < producers * perProducer {
                        guard let pointer = queue.pop() else { continue }
                        if case .task(let task) = LockFreeJob.take(pointer).work { task() }
                        consumed.add(1, ordering: .relaxed)
                    }
                    done.leave()
                }
            }
            #expect(done.wait(timeout: .now() + 30) == .success)
            let wrong = (0..<(producers * perProducer)).filter { counts[$0].load(ordering: .relaxed) != 1 }
            #expect(wrong.isEmpty, "\(wrong.count) jobs were taken other than once")
        }

        @Test("local run queue: the owner's pushes and pops and two thieves' steals take every job exactly once")
        func localRunQueue() {
            let queue = LocalRunQueue()
            let total = 200_000
            let counts = UnsafeMutablePointer<Atomic<Int>>.allocate(capacity: total)
            for index in 0..<total { (counts + index).initialize(to: Atomic(0)) }
            defer { counts.deinitialize(count: total); counts.deallocate() }
            nonisolated(unsafe) let hits = counts
            let taken = Atomic<Int>(0)
            let ownerDone = Atomic<Bool>(false)
            let thieves = DispatchGroup()
            @Sendable func run(_ pointer: UnsafeMutableRawPointer) {
                if case .task(let task) = LockFreeJob.take(pointer).work { task() }
                taken.add(1, ordering: .relaxed)
            }
            for _ in 0..<2 {
                thieves.enter()
                Threads.detach {
                    while !ownerDone.load(ordering: .acquiring) || !queue.isEmpty {
                        if let stolen = queue.pop() { run(stolen) }
                    }
                    thieves.leave()
                }
            }
            var next = 0
            while next < total {
                let job = LockFreeJob(.task {})
                let index = next
                job.work = .task { hits[index].add(1, ordering: .relaxed) }
                let pointer = job.retainedPointer()
                if queue.push(pointer) {
                    next += 1
                    if next % 3 == 0, let popped = queue.pop() { run(popped) }
                } else {
                    _ = LockFreeJob.take(pointer)
                    if let popped = queue.pop() { run(popped) }
                }
            }
            while let popped = queue.pop() { run(popped) }
            ownerDone.store(true, ordering: .releasing)
            #expect(thieves.wait(timeout: .now() + 30) == .success)
            #expect(taken.load(ordering: .relaxed) == total)
            let wrong = (0..<total).filter { hits[$0].load(ordering: .relaxed) != 1 }
            #expect(wrong.isEmpty, "\(wrong.count) jobs were taken other than once")
        }

        @Test("only the files the lock-free design note lists as cold paths hold locks")
        func locksOnlyOnColdPaths() throws {
            let folder = repositoryRoot.appendingPathComponent("Sources/Contenders/LockFree")
            let note = try String(contentsOf: folder.appendingPathComponent("LockFreeEngine.swift"), encoding: .utf8)
            let lockWords = ["PthreadMutex", "PthreadCondition", "pthread_mutex", "pthread_cond", "Mutex<", "NSLock"]
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
            #expect(files.count > 10)
            for file in files where file != "LockFreeEngine.swift" {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(
                    separator: "\n")
                guard lockWords.contains(where: code.contains) else { continue }
                let type = file.replacingOccurrences(of: ".swift", with: "")
                #expect(
                    note.contains("`\(type)`") || note.contains("`\(type.replacingOccurrences(of: "Queue", with: ""))`"),
                    "\(file) holds a lock but the design note does not list it as a cold path")
            }
        }
    }
}
