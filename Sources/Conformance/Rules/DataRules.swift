import ArenaContract
import Harness

/// Buffers of bytes in disjoint regions: concatenation and subranges share regions, maps are contiguous, and a
/// buffer's deallocator runs once, on its queue, after the last reference.
enum DataRules: RuleFamily {
    static let concept = Concept.data
    static let rules: [any ConformanceRule.Type] = [
        DataConcatNoCopy.self, DataSubrangeNoCopy.self, DataMapContiguous.self, DataCopyAcrossRegions.self,
        DataEnumerate.self, DataDeallocatorOnce.self,
        DataNestedSubrange.self,
    ]

    /// A buffer of `count` bytes, `first`, `first + 1`, …, copied in.
    static func bytes<E: Engine>(_ engine: E, count: Int, from first: UInt8) -> E.Data {
        let values = (0..<count).map { first &+ UInt8(truncatingIfNeeded: $0) }
        return values.withUnsafeBytes { engine.makeData(copying: $0) }
    }

    /// The regions of `data` as (base address, count, offset).
    static func regions<D: EngineData>(_ data: D) -> [(base: UnsafeRawPointer?, count: Int, offset: Int)] {
        var found: [(UnsafeRawPointer?, Int, Int)] = []
        data.forEachRegion { region, offset in
            found.append((region.baseAddress, region.count, offset))
            return true
        }
        return found
    }
}

enum DataConcatNoCopy: BehaviourRule {
    static let id = "data.concat-no-copy"
    static let title = "Concatenating two buffers copies no byte: the result's regions are the originals, in order, and hold both."
    static let source = """
        [objc.io #2] ("GCD and Buffers": dispatch_data_create_concat 'will not copy a and b ... it \
        will simply retain both'); dispatch_data_create_concat(3); libdispatch tests dispatch_data.c
        """

    static let forbidden: [Outcome] = [.wrongValue, .copied]

    static func check<E: Engine>(_ engine: E) throws {
        let a = DataRules.bytes(engine, count: 17, from: 0), b = DataRules.bytes(engine, count: 17, from: 100)
        let joined = a.appending(b)
        try expect(joined.count == 34, .wrongValue, "17 + 17 bytes concatenated hold \(joined.count)")
        try expect(joined.bytes == a.bytes + b.bytes, .wrongValue, "the concatenation's bytes are not the two buffers' in order")
        let parts = DataRules.regions(a) + DataRules.regions(b)
        let seen = DataRules.regions(joined)
        try expect(
            seen.map(\.base) == parts.map(\.base) && seen.map(\.count) == [17, 17], .copied,
            "the concatenation's \(seen.count) regions are not the originals (bytes were copied)")
        try expect(seen.map(\.offset) == [0, 17], .wrongValue, "region offsets \(seen.map(\.offset)), expected [0, 17]")
    }
}

enum DataSubrangeNoCopy: BehaviourRule {
    static let id = "data.subrange-no-copy"
    static let title = "A subrange copies no byte: its regions point into the original's, and hold the bytes asked for."
    static let source = """
        [objc.io #2] ("a subrange with dispatch_data_create_subrange that won't do any copying"); \
        dispatch_data_create_subrange(3)
        """

    static let forbidden: [Outcome] = [.wrongValue, .copied]

    static func check<E: Engine>(_ engine: E) throws {
        let a = DataRules.bytes(engine, count: 40, from: 0), b = DataRules.bytes(engine, count: 40, from: 40)
        let whole = a.appending(b)
        let middle = whole.subdata(30..<50)
        try expect(middle.bytes == Array(30..<50).map(UInt8.init), .wrongValue, "subdata(30..<50) holds \(middle.bytes)")
        let bases = DataRules.regions(whole).map { $0.base! }
        for region in DataRules.regions(middle) {
            let inside = zip(bases, [40, 40]).contains { base, count in region.base! >= base && region.base! + region.count <= base + count
            }
            try expect(inside, .copied, "a region of the subrange lies outside the original's regions (bytes were copied)")
        }
        let inFirst = whole.subdata(5..<15)
        try expect(
            DataRules.regions(inFirst).first?.base == bases[0] + 5, .wrongValue,
            "subdata(5..<15) does not start 5 bytes into the original region")
    }
}

enum DataMapContiguous: BehaviourRule {
    static let id = "data.map-contiguous"
    static let title =
        "Mapping a buffer of several regions gives one region of the full size with the same bytes; a one-region buffer maps to itself."
    static let source = """
        dispatch_data_create_map(3) ('a new data object representing a contiguous memory region'); libdispatch tests \
        dispatch_data.c (17 + 17 = 34 bytes, mapped)
        """

    static let forbidden: [Outcome] = [.wrongValue, .copied]

    static func check<E: Engine>(_ engine: E) throws {
        let joined = DataRules.bytes(engine, count: 17, from: 0).appending(DataRules.bytes(engine, count: 17, from: 17))
        let mapped = joined.contiguous()
        let regions = DataRules.regions(mapped)
        try expect(
            regions.count == 1 && regions[0].count == 34, .wrongValue,
            "the map has regions of \(regions.map(\.count)) bytes, expected one of 34")
        try expect(mapped.bytes == Array(0..<34).map(UInt8.init), .wrongValue, "the map's bytes differ from the buffer's")
        let single = DataRules.bytes(engine, count: 9, from: 0)
        try expect(
            DataRules.regions(single.contiguous()).first?.base == DataRules.regions(single).first?.base, .copied,
            "mapping a one-region buffer copied it")
    }
}

enum DataCopyAcrossRegions: BehaviourRule {
    static let id = "data.copy-across-regions"
    static let title = "Copying any range of a buffer of three regions gives exactly those bytes, at every offset and length."
    static let source =
        "the Swift overlay's DispatchData tests (copyBytes across regions); dispatch_data_apply(3); libdispatch tests dispatch_data.c"

    static let forbidden: [Outcome] = [.wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let three = DataRules.bytes(engine, count: 7, from: 0)
            .appending(DataRules.bytes(engine, count: 5, from: 7))
            .appending(DataRules.bytes(engine, count: 9, from: 12))
        try expect(three.regionCount == 3, .wrongValue, "three buffers concatenated have \(three.regionCount) regions")
        let expected = Array(0..<21).map(UInt8.init)
        var out = [UInt8](repeating: 0xEE, count: 21)
        for lower in 0...21 {
            for upper in lower...21 {
                out.withUnsafeMutableBytes { three.copyBytes(to: $0.baseAddress!, from: lower..<upper) }
                try expect(
                    Array(out[0..<(upper - lower)]) == Array(expected[lower..<upper]), .wrongValue,
                    "copying \(lower)..<\(upper) gave \(Array(out[0..<(upper - lower)]))")
            }
        }
    }
}

enum DataEnumerate: BehaviourRule {
    static let id = "data.enumerate"
    static let title = "Enumerating regions visits them in order with their offsets and stops when told; an empty buffer has none."
    static let source = """
        dispatch_data_apply(3) ('the applier ... returns false to stop'; an empty object is not traversed); \
        [objc.io #2] (dispatch_data_apply)
        """

    static let forbidden: [Outcome] = [.extra, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let empty = engine.makeData(copying: UnsafeRawBufferPointer(start: nil, count: 0))
        var calls = 0
        let finished = empty.forEachRegion { _, _ in
            calls += 1; return true
        }
        try expect(empty.count == 0 && calls == 0 && finished, .wrongValue, "an empty buffer: count \(empty.count), \(calls) applier calls")
        let a = DataRules.bytes(engine, count: 3, from: 0)
        try expect(
            a.appending(empty).regionCount == 1 && empty.appending(a).count == 3, .wrongValue,
            "appending the empty buffer added a region or bytes")
        let three = a.appending(DataRules.bytes(engine, count: 4, from: 3)).appending(DataRules.bytes(engine, count: 5, from: 7))
        try expect(
            DataRules.regions(three).map(\.offset) == [0, 3, 7], .wrongValue,
            "offsets \(DataRules.regions(three).map(\.offset)), expected [0, 3, 7]")
        var visited = 0
        let completed = three.forEachRegion { _, _ in
            visited += 1; return visited < 2
        }
        try expect(
            visited == 2 && !completed, .extra,
            "told to stop at the second region, the applier ran \(visited) times (completed: \(completed))")
    }
}

enum DataDeallocatorOnce: BehaviourRule {
    static let id = "data.deallocator-once"
    static let title =
        "A buffer taken with a deallocator frees nothing while any buffer shares it, then runs the deallocator once, on its queue."
    static let source = """
        dispatch_data_create(3) ('the destructor ... is submitted to the specified queue ... when the data object \
        is released'); [objc.io #2] ("the dispatch_data_t object owns the buffer"); libdispatch \
        tests dispatch_data.c (destructor)
        """

    static let forbidden: [Outcome] = [.missing, .extra, .early, .wrongValue, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        let key = SpecificKey<String>("arena.data.queue")
        let queue = engine.makeQueue(label: "arena.data.deallocator")
        queue.setSpecific(key, "deallocator")
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 7)
        let calls = Counter()
        let places = Recorder<String>()
        let freed = Latch()
        var kept: E.Data?
        do {
            let taken = engine.makeData(taking: UnsafeRawBufferPointer(storage), deallocateOn: queue) {
                places.append(engine.currentSpecific(key) ?? "elsewhere")
                calls.add()
                freed.countDown()
            }
            kept = DataRules.bytes(engine, count: 4, from: 0).appending(taken.subdata(10..<20))
        }  // the buffer made from the bytes is gone; the concatenation still shares them
        Timing.pause(Timing.quietPeriod)
        try expect(calls.value == 0, .early, "the deallocator ran while a concatenation still shared the bytes")
        try expect(kept?.bytes == [0, 1, 2, 3] + [UInt8](repeating: 7, count: 10), .wrongValue, "the shared bytes changed")
        kept = nil
        try expectOpens(freed, "the deallocator after the last buffer went")
        Timing.pause(Timing.quietPeriod)
        try expect(calls.value == 1, .extra, "the deallocator ran \(calls.value) times")
        try expect(places.elements == ["deallocator"], .wrongPlace, "the deallocator ran \(places.elements.joined()), not on its queue")
        storage.deallocate()
    }
}

enum DataNestedSubrange: BehaviourRule {
    static let id = "data.nested-subrange"
    static let title =
        "A subrange of a subrange, a concatenation of subranges and a subrange of that hold exactly the bytes asked for, wherever the ranges start and end in the shared regions: inside one, on a boundary, across several."
    static let source = """
        dispatch_data_create_subrange(3) and dispatch_data_create_concat(3) take any data object, itself a subrange or \
        a concatenation; [objc.io #2] ("GCD and Buffers": subranges and concatenations share the \
        regions); libdispatch tests dispatch_data.c (subranges of composite data)
        """
    static let forbidden: [Outcome] = [.wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        // Four regions of uneven sizes, each of its own bytes; `reference` is what the whole holds.
        var reference: [UInt8] = []
        var parts: [E.Data] = []
        for (index, size) in [13, 29, 7, 21].enumerated() {
            let first = UInt8(index * 60)
            parts.append(DataRules.bytes(engine, count: size, from: first))
            reference += (0..<size).map { first &+ UInt8($0) }
        }
        let whole = parts.dropFirst().reduce(parts[0]) { $0.appending($1) }

        func verify(_ data: E.Data, _ expected: ArraySlice<UInt8>, _ what: @autoclosure () -> String) throws {
            try expect(data.count == expected.count, .wrongValue, "\(what()) holds \(data.count) bytes, expected \(expected.count)")
            let bytes = data.bytes
            try expect(bytes.elementsEqual(expected), .wrongValue, "\(what()) holds \(bytes), expected \(Array(expected))")
        }

        let total = reference.count
        var outers: [(data: E.Data, range: Range<Int>)] = []
        for outerStart in stride(from: 0, to: total, by: 3) {
            for outerEnd in stride(from: outerStart + 1, through: total, by: 11) + [total] {
                let outer = whole.subdata(outerStart..<outerEnd)
                try verify(outer, reference[outerStart..<outerEnd], "subdata(\(outerStart)..<\(outerEnd))")
                outers.append((outer, outerStart..<outerEnd))
                let length = outerEnd - outerStart
                for innerStart in stride(from: 0, to: length, by: 2) {
                    let innerEnd = min(length, innerStart + 1 + (innerStart * 7 + outerStart) % 19)
                    let inner = outer.subdata(innerStart..<innerEnd)
                    let at = outerStart + innerStart
                    try verify(
                        inner, reference[at..<(outerStart + innerEnd)],
                        "subdata(\(outerStart)..<\(outerEnd)).subdata(\(innerStart)..<\(innerEnd))")
                    // A third level, from the middle of the second.
                    if innerEnd - innerStart > 2 {
                        let third = inner.subdata(1..<(innerEnd - innerStart - 1))
                        try verify(
                            third, reference[(at + 1)..<(outerStart + innerEnd - 1)],
                            "subdata(\(outerStart)..<\(outerEnd)).subdata(\(innerStart)..<\(innerEnd)).subdata(1..<\(innerEnd - innerStart - 1))"
                        )
                    }
                }
            }
        }

        // Concatenations of subranges, and subranges of those.
        for index in stride(from: 0, to: outers.count, by: 5) {
            let (a, aRange) = outers[index]
            let (b, bRange) = outers[(index * 7 + 3) % outers.count]
            let joined = a.appending(b)
            let expected = Array(reference[aRange]) + Array(reference[bRange])
            try verify(joined, expected[...], "subdata(\(aRange)) + subdata(\(bRange))")
            for start in stride(from: 0, to: expected.count, by: 4) {
                let end = min(expected.count, start + 1 + (start * 5) % 23)
                try verify(
                    joined.subdata(start..<end), expected[start..<end],
                    "(subdata(\(aRange)) + subdata(\(bRange))).subdata(\(start)..<\(end))")
            }
        }
    }
}
