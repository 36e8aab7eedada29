/// The order the contenders of a point take their turns in each round, shuffled from the run's seed.
///
/// Each point's orders depend only on the seed, the point's name and the round, never on what else the run measures:
/// `arena bench --seed S` replays the orders of every point a run with seed S measured, even with other workloads or
/// engines beside it (the contenders present are shuffled the same way whenever they are the same). SplitMix64
/// (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014) seeded with the seed, the
/// point and the round mixed, then a Fisher–Yates shuffle. Costs a few multiplications per contender.
public enum RoundOrder {
    /// A seed for a run that was not given one: from the system's random source.
    public static func freshSeed() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return generator.next() >> 11  // 53 bits: exact in JSON's numbers and in a Double
    }

    /// `engines` (in lineup order) in the order they take their turns in `round` of `point`.
    public static func order(_ engines: [String], seed: UInt64, point: String, round: Int) -> [String] {
        var state = seed ^ (fnv1a(point) &* 0x9E37_79B9_7F4A_7C15) ^ (UInt64(round) &* 0xBF58_476D_1CE4_E5B9)
        var shuffled = engines
        if shuffled.count > 1 {
            for index in stride(from: shuffled.count - 1, to: 0, by: -1) {
                let other = Int(next(&state) % UInt64(index + 1))
                shuffled.swapAt(index, other)
            }
        }
        return shuffled
    }

    /// SplitMix64's step.
    static func next(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// FNV-1a over the name's UTF-8: a point's name as a number, the same in every process and every run.
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3 }
        return hash
    }
}
