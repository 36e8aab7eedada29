import Glibc

/// The section names of a 64-bit little-endian ELF file, read from its section header table: enough to tell whether a
/// program carries debug information (the bundle's `arena` is stripped and needs no `objcopy` before callgrind).
public enum ELFSections {
    /// Whether the ELF file at `path` has a `.debug_*` section; `nil` when it cannot be read as 64-bit little-endian
    /// ELF. Costs a few `pread`s: the header, the section table and its string table.
    public static func hasDebugInfo(_ path: String) -> Bool? {
        names(path).map { $0.contains { $0.hasPrefix(".debug_") } }
    }

    /// Every section's name, in the table's order, or `nil` when the file is not readable 64-bit little-endian ELF.
    public static func names(_ path: String) -> [String]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        func bytes(_ offset: UInt64, _ count: Int) -> [UInt8]? {
            guard count >= 0, count <= 1 << 26 else { return nil }
            var buffer = [UInt8](repeating: 0, count: count)
            let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            return read == count ? buffer : nil
        }
        func integer(_ buffer: [UInt8], _ at: Int, _ width: Int) -> UInt64 {
            (0..<width).reduce(UInt64(0)) { $0 | UInt64(buffer[at + $1]) << (8 * UInt64($1)) }
        }
        // e_ident: the magic, ELFCLASS64 (2), ELFDATA2LSB (1).
        guard let header = bytes(0, 64), header[0..<4].elementsEqual([0x7F, 0x45, 0x4C, 0x46]), header[4] == 2,
            header[5] == 1
        else { return nil }
        let tableOffset = integer(header, 0x28, 8)
        let entrySize = Int(integer(header, 0x3A, 2))
        let count = Int(integer(header, 0x3C, 2))
        let namesIndex = Int(integer(header, 0x3E, 2))
        guard entrySize >= 64, namesIndex < count, let table = bytes(tableOffset, entrySize * count) else { return nil }
        // Each entry: sh_name (the name's offset in the string table) at 0, sh_offset at 0x18, sh_size at 0x20.
        let stringsAt = namesIndex * entrySize
        guard
            let strings = bytes(
                integer(table, stringsAt + 0x18, 8), Int(clamping: integer(table, stringsAt + 0x20, 8)))
        else { return nil }
        return (0..<count).map { index in
            let start = Int(integer(table, index * entrySize, 4))
            guard start < strings.count else { return "" }
            let end = strings[start...].firstIndex(of: 0) ?? strings.endIndex
            return String(decoding: strings[start..<end], as: UTF8.self)
        }
    }
}
