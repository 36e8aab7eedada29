/// Numbers as the tables, flags and labels write them, without Foundation's formatters: one place for every
/// rounding rule, so a figure reads the same in the console, report.md and the instruction table.
public enum Figures {
    /// A number with three significant digits and an SI suffix (12.3k, 4.56M, 1.20G).
    public static func format(_ value: Double) -> String {
        let magnitude = abs(value)
        let (scaled, suffix): (Double, String) =
            switch magnitude {
            case 1e9...: (value / 1e9, "G")
            case 1e6...: (value / 1e6, "M")
            case 1e3...: (value / 1e3, "k")
            default: (value, "")
            }
        let digits = abs(scaled) >= 100 ? 0 : abs(scaled) >= 10 ? 1 : 2
        return fixed(scaled, digits) + suffix
    }

    /// A fraction as a percentage: one decimal below 10% (`4.2%`), none above (`14%`).
    public static func percent(_ fraction: Double) -> String { fixed(fraction * 100, fraction * 100 >= 10 ? 0 : 1) + "%" }

    /// A ratio as tables write it: `×0.80`, `×12.9`, and a third decimal below 0.1 (`×0.042`) so small ones differ.
    public static func ratio(_ value: Double) -> String {
        "×" + fixed(value, value < 0.1 ? 3 : value >= 10 ? 1 : 2)
    }

    /// `value` with exactly `digits` decimals ("14.2"); `-` for a value that is not finite. Magnitudes beyond 2^53
    /// (where a Double has no fraction left) fall back to `description`.
    public static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "-" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9_007_199_254_740_992 else { return value.description }
        let units = UInt64(scaled)
        let divisor = UInt64(scale)
        let whole = String(units / divisor)
        let sign = value < 0 && units != 0 ? "-" : ""
        guard digits > 0 else { return sign + whole }
        let fraction = String(units % divisor)
        return sign + whole + "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
}
