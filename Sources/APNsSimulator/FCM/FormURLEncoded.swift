/// Decodes an `application/x-www-form-urlencoded` body (the OAuth token
/// request): `name=value` pairs joined by `&`, `+` for space, `%XX` escapes.
enum FormURLEncoded {
    /// The fields (a repeated name keeps its first value), or `nil` when an
    /// escape is malformed or a value is not UTF-8.
    static func parse(_ body: [UInt8]) -> [String: String]? {
        var fields: [String: String] = [:]
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]) else { return nil }
            guard let value = parts.count == 2 ? decode(parts[1]) : "" else { return nil }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                output.append(0x20)
            } else if byte == UInt8(ascii: "%") {
                guard bytes.endIndex - index >= 3,
                      let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) else { return nil }
                output.append(high << 4 | low)
                index += 2
            } else {
                output.append(byte)
            }
            index += 1
        }
        return String(validating: output, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }
}
