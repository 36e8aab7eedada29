/// The home engines' data buffer: an array of slices of shared, reference-counted regions. Engine-neutral: a buffer
/// schedules nothing; a region taken with a deallocator holds the closure that submits it to the deallocator's queue.
///
/// A copy of the buffer copies the slice array (one reference per region), never bytes. Concatenating two buffers
/// joins their slice arrays; a subrange keeps the slices it covers, trimmed. `contiguous()` of several regions
/// allocates one region and copies into it.
public struct RegionData: EngineData {
    /// One run of bytes and what to do with them when the last slice of it is gone.
    final class Region: @unchecked Sendable {
        let base: UnsafeRawPointer
        let count: Int
        private let release: @Sendable (UnsafeRawPointer) -> Void

        init(base: UnsafeRawPointer, count: Int, release: @escaping @Sendable (UnsafeRawPointer) -> Void) {
            (self.base, self.count, self.release) = (base, count, release)
        }

        deinit { release(base) }
    }

    /// A part of a region: `count` bytes from `start`.
    struct Slice: Sendable {
        let region: Region
        let start: Int
        let count: Int
        var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: region.base + start, count: count) }
    }

    private let slices: [Slice]
    public let count: Int

    private init(_ slices: [Slice]) {
        self.slices = slices
        count = slices.reduce(0) { $0 + $1.count }
    }

    /// A buffer holding a copy of `bytes` (one allocation); the empty buffer when there are none.
    public init(copying bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0, let source = bytes.baseAddress else {
            self.init([])
            return
        }
        let copy = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 16)
        copy.copyMemory(from: source, byteCount: bytes.count)
        self.init([Slice(region: Region(base: copy, count: bytes.count) { $0.deallocate() }, start: 0, count: bytes.count)])
    }

    /// A buffer of `bytes` as they are; `release` runs once the last buffer sharing them is gone, on whichever thread
    /// drops it (engines pass a closure that submits the caller's deallocator to its queue). With no bytes there is
    /// no slice to keep the region, so `release` runs at once, as libdispatch runs an empty buffer's destructor.
    public init(taking bytes: UnsafeRawBufferPointer, release: @escaping @Sendable () -> Void) {
        let region = Region(base: bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, count: bytes.count) { _ in release() }
        self.init(bytes.count > 0 ? [Slice(region: region, start: 0, count: bytes.count)] : [])
    }

    public func appending(_ other: RegionData) -> RegionData { RegionData(slices + other.slices) }

    public func subdata(_ range: Range<Int>) -> RegionData {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "RegionData: subdata \(range) out of 0..<\(count)")
        var kept: [Slice] = []
        var offset = 0
        for slice in slices {
            let lower = Swift.max(range.lowerBound, offset), upper = Swift.min(range.upperBound, offset + slice.count)
            if lower < upper { kept.append(Slice(region: slice.region, start: slice.start + lower - offset, count: upper - lower)) }
            offset += slice.count
            if offset >= range.upperBound { break }
        }
        return RegionData(kept)
    }

    @discardableResult
    public func forEachRegion(_ body: (UnsafeRawBufferPointer, Int) -> Bool) -> Bool {
        var offset = 0
        for slice in slices {
            guard body(slice.bytes, offset) else { return false }
            offset += slice.count
        }
        return true
    }

    public func contiguous() -> RegionData {
        guard slices.count > 1 else { return self }
        let copy = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
        copyBytes(to: copy, from: 0..<count)
        return RegionData([Slice(region: Region(base: copy, count: count) { $0.deallocate() }, start: 0, count: count)])
    }

    public func copyBytes(to destination: UnsafeMutableRawPointer, from range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "RegionData: copyBytes \(range) out of 0..<\(count)")
        var offset = 0
        for slice in slices where offset < range.upperBound {
            let lower = Swift.max(range.lowerBound, offset), upper = Swift.min(range.upperBound, offset + slice.count)
            if lower < upper {
                (destination + (lower - range.lowerBound)).copyMemory(
                    from: slice.region.base + slice.start + lower - offset,
                    byteCount: upper - lower)
            }
            offset += slice.count
        }
    }
}

/// `makeData` for every engine whose buffers are `RegionData` (the home engines, and an outside engine that declares
/// `typealias Data = RegionData`): a copy is one allocation; taken bytes submit the deallocator to `queue` when the
/// last buffer sharing them is gone.
extension Engine where Data == RegionData {
    public func makeData(copying bytes: UnsafeRawBufferPointer) -> RegionData { RegionData(copying: bytes) }

    public func makeData(
        taking bytes: UnsafeRawBufferPointer, deallocateOn queue: Queue,
        _ deallocator: @escaping @Sendable () -> Void
    ) -> RegionData {
        RegionData(taking: bytes) { queue.async(deallocator) }
    }
}
