import Foundation

/// Reads an HTTP `Retry-After` value (RFC 9110 §10.2.3): delay-seconds
/// (`120`) or an HTTP date in the preferred IMF-fixdate form
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), as the time left from `now`.
/// A date in the past is zero; anything else is nil (no advice). The two
/// obsolete date forms RFC 9110 also names are not read. Longer than a day
/// is read as a day: no provider means more, and arithmetic stays safe.
public enum RetryAfter {
    /// The delay `text` asks for, from `now` in epoch seconds (the caller's
    /// injected clock: a date is read against it, never against the wall clock here).
    public static func duration(_ text: String, now: Int64) -> Duration? {
        let value = text.trimmingCharacters(in: .whitespaces)
        if !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            guard let seconds = Int64(value) else { return .seconds(maximumSeconds) }  // beyond Int64: a day
            return .seconds(min(seconds, maximumSeconds))
        }
        guard let epoch = imfFixdate(value) else { return nil }
        return .seconds(min(maximumSeconds, max(0, epoch - now)))
    }

    /// The longest delay read: a day.
    static let maximumSeconds: Int64 = 86_400

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT` as epoch seconds.
    static func imfFixdate(_ text: String) -> Int64? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), days.contains(String(parts[0].prefix(3))),
              parts[1].count == 2, let day = digits(parts[1]), (1...31).contains(day),
              let monthIndex = months.firstIndex(of: parts[2]),
              parts[3].count == 4, let year = digits(parts[3]), year >= 1970,
              parts[5] == "GMT" else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard parts[4].count == 8, clock.count == 3, let hour = digits(clock[0]), let minute = digits(clock[1]),
              let second = digits(clock[2]), hour < 24, minute < 60, second < 61 else { return nil }
        let days = daysFromCivil(year: year, month: Int64(monthIndex + 1), day: day)
        return days * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// The value of a field of ASCII digits only (no sign), or nil.
    private static func digits<Text: StringProtocol>(_ text: Text) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shifted = month <= 2 ? year - 1 : year
        let era = shifted / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
