/// The shape rules of device tokens (API.md "Limits"). A token that fails
/// them is refused before anything is sent: sending it would only earn a
/// `BadDeviceToken` and count against the connection.
public enum DeviceToken {
    /// Why `token` is not a `platform` token, or nil when it has the right shape.
    public static func problem(with token: String, platform: Platform) -> String? {
        switch platform {
        case .apns:
            let count = token.utf8.count
            guard (64...200).contains(count), count % 2 == 0 else {
                return "an APNs token is an even number (64 to 200) of hex digits; this one has \(count) characters"
            }
            var bytes = token
            guard bytes.withUTF8({ HexDigits.all($0) }) else {
                return "an APNs token holds hex digits only (0-9, a-f)"
            }
            return nil
        case .fcm:
            let count = token.utf8.count
            guard count >= 1, count <= 4096 else {
                return "an FCM token has 1 to 4096 characters; this one has \(count)"
            }
            // Each byte in 0x21...0x7E: no byte of 0x80 and above, none of 0x20 and below, no 0x7F.
            var bytes = token
            let kinds = bytes.withUTF8 { PrintableASCII.classify($0) }
            guard !kinds.nonASCII, !kinds.spaceOrControl else {
                return "an FCM token holds printable ASCII only, without spaces"
            }
            return nil
        }
    }
}

/// The syntax check for URLs the gateway accepts (avatars, provider origins).
public enum HTTPURL {
    /// True for `http://host…` and `https://host…` with a non-empty host and no
    /// whitespace or control characters.
    public static func isAbsolute(_ url: String) -> Bool {
        var bytes = url
        if let ascii = bytes.withUTF8({ isAbsoluteASCII($0) }) { return ascii }
        let lower = url.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            rest = lower.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            rest = lower.dropFirst(7)
        } else {
            return false
        }
        guard let first = rest.first, first != "/", first != "?", first != "#" else { return false }
        return url.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F }
    }

    /// `isAbsolute` for an all-ASCII URL, byte by byte (where lowercasing and
    /// characters are bytes, the rule reads the same); nil when the URL has
    /// other characters.
    private static func isAbsoluteASCII(_ url: UnsafeBufferPointer<UInt8>) -> Bool? {
        let kinds = PrintableASCII.classify(url)
        guard !kinds.nonASCII else { return nil }
        let printable = !kinds.spaceOrControl
        let restStart: Int
        if startsCaseInsensitively(url, with: "https://") {
            restStart = 8
        } else if startsCaseInsensitively(url, with: "http://") {
            restStart = 7
        } else {
            return false
        }
        guard restStart < url.count else { return false }
        switch url[restStart] {
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"): return false
        default: return printable
        }
    }

    /// Whether `bytes` starts with the lowercase ASCII `prefix`, ignoring ASCII case.
    private static func startsCaseInsensitively(_ bytes: UnsafeBufferPointer<UInt8>, with prefix: StaticString) -> Bool {
        prefix.withUTF8Buffer { expected in
            guard bytes.count >= expected.count else { return false }
            for offset in 0..<expected.count {
                var byte = bytes[offset]
                if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) { byte |= 0x20 }
                if byte != expected[offset] { return false }
            }
            return true
        }
    }
}
