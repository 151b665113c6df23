/// Counts as people read them: "1,234,567". The one grouping of the package: the screen, the
/// command line and the bench print counts through it.
public enum NumberText {
    /// 12345 -> "12,345"; -1234 -> "-1,234".
    public static func grouped(_ number: Int) -> String {
        // The magnitude, so the sign is never taken for a digit ("-,123"); Int.min has one too.
        let digits = String(number.magnitude)
        var result = number < 0 ? "-" : ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return result
    }
}
