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
            guard token.utf8.allSatisfy(isHexDigit) else {
                return "an APNs token holds hex digits only (0-9, a-f)"
            }
            return nil
        case .fcm:
            let count = token.utf8.count
            guard count >= 1, count <= 4096 else {
                return "an FCM token has 1 to 4096 characters; this one has \(count)"
            }
            guard token.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else {
                return "an FCM token holds printable ASCII only, without spaces"
            }
            return nil
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"):
            return true
        default:
            return false
        }
    }
}

/// The syntax check for URLs the gateway accepts (avatars, provider origins).
public enum HTTPURL {
    /// True for `http://host…` and `https://host…` with a non-empty host and no
    /// whitespace or control characters.
    public static func isAbsolute(_ url: String) -> Bool {
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
}
