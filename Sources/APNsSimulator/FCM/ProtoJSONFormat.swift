/// The proto3 JSON text forms of the well-known types the FCM schema
/// uses (`FCMMessageSchema.Kind.duration`, `.timestamp`).
enum ProtoJSONFormat {
    /// RFC 3339 as proto3 JSON writes a Timestamp:
    /// `YYYY-MM-DDTHH:MM:SS[.1-9 digits](Z|±HH:MM)`, fields in range
    /// (month 1–12, day 1–31, hour 0–23, minute and second 0–59).
    static func isTimestamp(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<start + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        func byte(_ at: Int, _ expected: Character) -> Bool { at < bytes.count && bytes[at] == expected.asciiValue! }
        guard number(0, 4) != nil, byte(4, "-"), let month = number(5, 2), (1...12).contains(month), byte(7, "-"),
              let day = number(8, 2), (1...31).contains(day), byte(10, "T") || byte(10, "t"),
              let hour = number(11, 2), hour < 24, byte(13, ":"), let minute = number(14, 2), minute < 60, byte(16, ":"),
              let second = number(17, 2), second < 60 else { return false }
        var index = 19
        if byte(index, ".") {
            let start = index + 1
            index = start
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            guard (1...9).contains(index - start) else { return false }
        }
        if byte(index, "Z") || byte(index, "z") { return index + 1 == bytes.count }
        guard byte(index, "+") || byte(index, "-"), let offsetHours = number(index + 1, 2), offsetHours < 24,
              byte(index + 3, ":"), let offsetMinutes = number(index + 4, 2), offsetMinutes < 60 else { return false }
        return index + 6 == bytes.count
    }

    /// The whole seconds of a Duration text `isDuration` accepted, and
    /// whether it has a non-zero fraction.
    static func durationSeconds(_ text: UnsafeBufferPointer<UInt8>) -> (seconds: Int64, hasFraction: Bool, negative: Bool) {
        var seconds: Int64 = 0
        var hasFraction = false
        var inFraction = false
        for byte in text.dropLast() {
            if byte == UInt8(ascii: "-") { continue }
            if byte == UInt8(ascii: ".") { inFraction = true; continue }
            if inFraction { hasFraction = hasFraction || byte != UInt8(ascii: "0") } else { seconds = seconds * 10 + Int64(byte - 0x30) }
        }
        return (seconds, hasFraction, text.first == UInt8(ascii: "-"))
    }

    /// `[-]digits[.1-9 digits]s`, the proto3 JSON form of a Duration.
    static func isDuration(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var bytes = text[...]
        guard bytes.last == UInt8(ascii: "s") else { return false }
        bytes = bytes.dropLast()
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let parts = bytes.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.count <= 12,
              whole.allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
        if parts.count == 2 {
            let fraction = parts[1]
            guard (1...9).contains(fraction.count), fraction.allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
        }
        return true
    }
}
