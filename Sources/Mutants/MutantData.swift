import ArenaContract
import Contenders

/// A buffer of the base engine with the engine's data fault applied.
struct MutantData<Base: Engine>: EngineData {
    let base: Base.Data
    let engine: Base
    let fault: Fault
    /// Under `nestedSubrangeLosesOffset`: for a subrange, the buffer it was taken from and where it starts there.
    var origin: (data: Base.Data, start: Int)?

    init(_ base: Base.Data, engine: Base, fault: Fault) {
        (self.base, self.engine, self.fault) = (base, engine, fault)
    }

    private func wrap(_ data: Base.Data) -> MutantData { MutantData(data, engine: engine, fault: fault) }

    /// The same bytes in one fresh region: what a copying engine would make.
    private func copied(_ data: Base.Data) -> Base.Data { data.bytes.withUnsafeBytes { engine.makeData(copying: $0) } }

    var count: Int { base.count }

    func appending(_ other: MutantData) -> MutantData {
        let joined = base.appending(other.base)
        return wrap(fault == .concatCopies ? copied(joined) : joined)
    }

    func subdata(_ range: Range<Int>) -> MutantData {
        if fault == .nestedSubrangeLosesOffset { return nestedSubdata(range) }
        let part = base.subdata(range)
        return wrap(fault == .subrangeCopies ? copied(part) : part)
    }

    @discardableResult
    func forEachRegion(_ body: (UnsafeRawBufferPointer, Int) -> Bool) -> Bool {
        guard fault == .enumerateIgnoresStop else { return base.forEachRegion(body) }
        base.forEachRegion { region, offset in
            _ = body(region, offset)
            return true
        }
        return true
    }

    func contiguous() -> MutantData { fault == .mapKeepsRegions ? self : wrap(base.contiguous()) }

    func copyBytes(to destination: UnsafeMutableRawPointer, from range: Range<Int>) {
        base.copyBytes(to: destination, from: range)
        guard fault == .copyCorruptsAcrossRegions, !range.isEmpty else { return }
        // Copies that span a region boundary lose their last byte, as a copy loop that stops one short of a region would.
        var boundaries = 0
        base.forEachRegion { region, offset in
            if offset > range.lowerBound && offset < range.upperBound { boundaries += 1 }
            return true
        }
        if boundaries > 0 { destination.storeBytes(of: 0xEE, toByteOffset: range.count - 1, as: UInt8.self) }
    }
}

extension MutantData {
    /// A subrange under `nestedSubrangeLosesOffset`: a subrange of a subrange that began inside a region counts its
    /// range from the start of that region, as a subrange that keeps the shared region but forgets its offset in it.
    fileprivate func nestedSubdata(_ range: Range<Int>) -> MutantData {
        var made = wrap(base.subdata(range))
        made.origin = (base, range.lowerBound)
        guard let origin else { return made }
        var partial = 0
        origin.data.forEachRegion { region, offset in
            guard offset <= origin.start && origin.start < offset + region.count else { return true }
            partial = origin.start - offset
            return false
        }
        let from = origin.start - partial + range.lowerBound
        if partial > 0 && from + range.count <= origin.data.count { made = wrap(origin.data.subdata(from..<(from + range.count))) }
        made.origin = (origin.data, origin.start + range.lowerBound)
        return made
    }
}
