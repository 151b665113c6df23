import Foundation

/// A calibre `last_modified` value and Bookshelf's revision for it. calibre writes the time in
/// UTC as Python's `isoformat(" ")` does ("2026-12-06 14:02:07.123456+00:00", the fraction
/// left out when it is zero); the revision is that instant in microseconds since 1970, so it
/// goes back into the same text exactly and orders as the times do.
enum CalibreTimestamp {
    /// The microseconds of a `last_modified` text, or nil for one that is not a time calibre
    /// writes (any offset is read, as calibre's own parser reads one).
    static func microseconds(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(bytes, 0, 4), let month = number(bytes, 5, 2), let day = number(bytes, 8, 2),
            let hour = number(bytes, 11, 2), let minute = number(bytes, 14, 2), let second = number(bytes, 17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < bytes.count, let digit = digit(bytes[index]) {
                if digits < 6 { fraction = fraction * 10 + digit }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            if digits < 6 { for _ in digits..<6 { fraction *= 10 } }
        }
        var offsetSeconds = 0
        if index < bytes.count {
            let sign = bytes[index]
            if sign == UInt8(ascii: "Z"), index + 1 == bytes.count {
                index += 1
            } else {
                guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), bytes.count == index + 6,
                    bytes[index + 3] == UInt8(ascii: ":"), let hours = number(bytes, index + 1, 2),
                    let minutes = number(bytes, index + 4, 2)
                else { return nil }
                offsetSeconds = (hours * 3600 + minutes * 60) * (sign == UInt8(ascii: "+") ? 1 : -1)
                index = bytes.count
            }
        }
        guard index == bytes.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return seconds * 1_000_000 + fraction
    }

    /// The text calibre writes for `microseconds` since 1970, in UTC.
    static func text(_ microseconds: Int) -> String {
        let seconds = microseconds.floorDivided(by: 1_000_000)
        let fraction = microseconds - seconds * 1_000_000
        let days = seconds.floorDivided(by: 86_400)
        let inDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var text =
            "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2)) "
            + "\(padded(inDay / 3600, 2)):\(padded(inDay % 3600 / 60, 2)):\(padded(inDay % 60, 2))"
        if fraction != 0 { text += "." + padded(fraction, 6) }
        return text + "+00:00"
    }

    /// Now, in microseconds since 1970.
    static func now() -> Int { Int((Date().timeIntervalSince1970 * 1_000_000).rounded(.down)) }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int? {
        var value = 0
        for index in start..<(start + count) {
            guard index < bytes.count, let digit = digit(bytes[index]) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = shifted.floorDivided(by: 400)
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let shifted = days + 719_468
        let era = shifted.floorDivided(by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Int {
    fileprivate func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
