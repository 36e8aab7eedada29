import Glibc

/// The bytes the I/O workloads copy: byte `i` of a stream is `bytes[i % period]`, and within a period no run of 251
/// bytes repeats for 64,256 bytes, so a byte lost, doubled, shifted or changed anywhere shows as a mismatch. A writer
/// sends whole periods; a reader checks what arrives against it as it arrives (`Check`), never keeping a copy.
@usableFromInline final class StreamPattern: @unchecked Sendable {  // immutable after init
    /// One period of the pattern.
    @usableFromInline let bytes: UnsafeRawBufferPointer

    /// A pattern of `period` bytes.
    @usableFromInline init(period: Int) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: period, alignment: 64)
        for index in 0..<period {
            buffer[index] = UInt8(truncatingIfNeeded: index % 251 &+ (index / 251) &* 7)
        }
        bytes = UnsafeRawBufferPointer(buffer)
    }

    deinit { bytes.deallocate() }

    /// The one-MiB pattern every I/O workload sends, made once per process.
    @usableFromInline static let mebibyte = StreamPattern(period: 1 << 20)

    /// The pattern's length in bytes.
    @inlinable var period: Int { bytes.count }

    /// A reader's check of one stream: every region that arrives is compared with the pattern at its offset in the
    /// stream (`memcmp`, a few GB/s), and the first byte that differs is kept.
    @usableFromInline struct Check {
        @usableFromInline let pattern: StreamPattern
        /// Bytes checked so far: the stream offset of the next byte.
        @usableFromInline var offset = 0
        /// The stream offset of the first byte that differed from the pattern, with what arrived and what was due.
        @usableFromInline var mismatch: (offset: Int, arrived: UInt8, expected: UInt8)?

        @inlinable init(_ pattern: StreamPattern) { self.pattern = pattern }

        /// Checks `region`, the next bytes of the stream.
        @inlinable mutating func check(_ region: UnsafeRawBufferPointer) {
            guard let base = region.baseAddress else { return }
            let period = pattern.period
            var done = 0
            while done < region.count {
                let at = offset % period
                let run = min(region.count - done, period - at)
                if mismatch == nil && memcmp(base + done, pattern.bytes.baseAddress! + at, run) != 0 {
                    for index in 0..<run where region[done + index] != pattern.bytes[at + index] {
                        mismatch = (offset + index, region[done + index], pattern.bytes[at + index])
                        break
                    }
                }
                done += run
                offset += run
            }
        }

        /// What went wrong, in words; `nil` when every byte so far matched.
        @inlinable var failure: String? {
            mismatch.map { "stream byte \($0.offset) arrived as \($0.arrived), expected \($0.expected)" }
        }
    }
}
