/// An immutable buffer of bytes that may live in several disjoint regions (`dispatch_data_t`, `DispatchData`).
///
/// Buffers are values: copies share their regions, and a region's bytes are freed (or handed to the deallocator
/// they were given with) when the last buffer sharing them is gone. Concatenation and subranges share regions
/// instead of copying bytes; only `contiguous()` of a buffer with several regions, and `copyBytes`, copy.
public protocol EngineData: Sendable {
    /// The bytes held. O(1).
    var count: Int { get }

    /// This buffer followed by `other`, sharing the regions of both: no byte is copied. O(regions).
    func appending(_ other: Self) -> Self

    /// The bytes at `range` (within `0..<count`), sharing the regions that hold them: no byte is copied. O(regions).
    func subdata(_ range: Range<Int>) -> Self

    /// Calls `body` with each region and its offset in the buffer, in order, until `body` returns false; returns
    /// whether every region was visited. An empty buffer has no region. O(regions).
    @discardableResult
    func forEachRegion(_ body: (UnsafeRawBufferPointer, Int) -> Bool) -> Bool

    /// The same bytes in one region: the buffer itself when it has at most one, else a copy (`dispatch_data_create_map`).
    func contiguous() -> Self

    /// Copies the bytes at `range` (within `0..<count`) to `destination`, across regions. O(range.count + regions).
    func copyBytes(to destination: UnsafeMutableRawPointer, from range: Range<Int>)
}

extension EngineData {
    /// The bytes, copied into an array (for checks and small buffers).
    public var bytes: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 { copyBytes(to: UnsafeMutableRawPointer(buffer.baseAddress!), from: 0..<count) }
            initialized = count
        }
    }

    /// How many regions the buffer has. O(regions).
    public var regionCount: Int {
        var regions = 0
        forEachRegion { _, _ in
            regions += 1; return true
        }
        return regions
    }
}
