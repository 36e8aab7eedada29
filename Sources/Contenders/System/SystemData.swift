import ArenaContract
import CDispatch
import CLinux
import Dispatch

/// A `dispatch_data_t`, through libdispatch's C API: the Swift overlay's `DispatchData` has no regions and no map on
/// Linux, and these are what the data rules check. Every operation is libdispatch's own (`dispatch_data_create`,
/// `_concat`, `_subrange`, `_apply`, `_create_map`); the wrapper only owns the reference.
public struct SystemData: EngineData {
    /// One reference to a libdispatch data object, released with the last copy of the buffer.
    final class Object: @unchecked Sendable {
        let data: dispatch_data_t
        /// Takes over `data`, a reference a `dispatch_data_create…` call returned.
        init(owning data: dispatch_data_t) { self.data = data }
        deinit { CLinux.dispatch_release(UnsafeMutableRawPointer(data)) }
    }

    let object: Object

    init(owning data: dispatch_data_t) { object = Object(owning: data) }

    /// A copy of `bytes` (`DISPATCH_DATA_DESTRUCTOR_DEFAULT`); the empty buffer when there are none.
    init(copying bytes: UnsafeRawBufferPointer) {
        self.init(owning: dispatch_data_create(bytes.baseAddress ?? SystemData.nowhere, bytes.count, nil, nil))
    }

    /// `bytes` as they are, with a destructor libdispatch submits to `queue` after the last release.
    init(taking bytes: UnsafeRawBufferPointer, queue: SystemQueue, _ deallocator: @escaping @Sendable () -> Void) {
        self.init(
            owning: dispatch_data_create(
                bytes.baseAddress ?? SystemData.nowhere, bytes.count, queue.cQueue,
                { deallocator() }))
    }

    /// Shares `data`, a reference libdispatch lends for the length of a call (an I/O handler's argument).
    init(borrowing data: dispatch_data_t) {
        CLinux.dispatch_retain(UnsafeMutableRawPointer(data))
        self.init(owning: data)
    }

    /// A pointer to pass with a count of zero, which libdispatch never reads.
    private static var nowhere: UnsafeRawPointer { UnsafeRawPointer(bitPattern: 16)! }

    public var count: Int { dispatch_data_get_size(object.data) }

    public func appending(_ other: SystemData) -> SystemData {
        SystemData(owning: dispatch_data_create_concat(object.data, other.object.data))
    }

    public func subdata(_ range: Range<Int>) -> SystemData {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "SystemData: subdata \(range) out of 0..<\(count)")
        return SystemData(owning: dispatch_data_create_subrange(object.data, range.lowerBound, range.count))
    }

    @discardableResult
    public func forEachRegion(_ body: (UnsafeRawBufferPointer, Int) -> Bool) -> Bool {
        withoutActuallyEscaping(body) { body in
            dispatch_data_apply(object.data) { _, offset, base, size in body(UnsafeRawBufferPointer(start: base, count: size), offset) }
        }
    }

    public func contiguous() -> SystemData {
        var base: UnsafeRawPointer?
        var size = 0
        return SystemData(owning: dispatch_data_create_map(object.data, &base, &size))
    }

    public func copyBytes(to destination: UnsafeMutableRawPointer, from range: Range<Int>) {
        guard !range.isEmpty else { return }
        subdata(range).forEachRegion { region, offset in
            (destination + offset).copyMemory(from: region.baseAddress!, byteCount: region.count)
            return true
        }
    }
}
