/// Spells out an event mask for messages; shared by `ProcessEvents` and `FileEvents`.
enum EventNames {
    static func describe(_ value: UInt, _ named: [(UInt, String)]) -> String {
        var words = named.filter { value & $0.0 != 0 }.map(\.1)
        let unknown = value & ~named.reduce(0) { $0 | $1.0 }
        if unknown != 0 { words.append("0x" + String(unknown, radix: 16)) }
        return "[" + words.joined(separator: ", ") + "]"
    }
}
