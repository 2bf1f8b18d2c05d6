/// Finds a device named twice in an event's recipients.
///
/// A token's identity is the token itself, lowercased for APNs (hex: the
/// same device may be written in either case). Tokens have passed
/// `DeviceToken.problem`, so they are ASCII and identities compare byte for
/// byte. A small event is checked by a scan of the recipients before each
/// one, with no allocation; past `linearLimit` recipients through a table
/// of identities made at the event's size.
enum SeenTokens {
    static let linearLimit = 16

    /// The first recipient whose device an earlier one names already (the
    /// lowest such `second`), with that earlier one; nil when every device
    /// is named once.
    static func firstRepeat(in recipients: [Recipient]) -> (first: Int, second: Int)? {
        guard recipients.count > linearLimit else {
            for second in recipients.indices {
                // Tokens of different lengths (the usual pair) are told apart without comparing bytes.
                let token = recipients[second].token, count = token.utf8.count, lowercase = recipients[second].platform == .apns
                for first in 0..<second where recipients[first].token.utf8.count == count
                    && sameIdentity(recipients[first].token, lowercasing: recipients[first].platform == .apns,
                                    token, lowercasing: lowercase) {
                    return (first, second)
                }
            }
            return nil
        }
        var identities: [String: Int] = [:]
        identities.reserveCapacity(recipients.count)
        for (second, recipient) in recipients.enumerated() {
            let identity = recipient.platform == .apns ? recipient.token.lowercased() : recipient.token
            if let first = identities.updateValue(second, forKey: identity) { return (first, second) }
        }
        return nil
    }

    /// Whether two ASCII tokens have the same identity, each side lowercased or not.
    static func sameIdentity(_ a: String, lowercasing lowerA: Bool, _ b: String, lowercasing lowerB: Bool) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        let x = a.utf8.span, y = b.utf8.span
        for offset in 0..<x.count {
            let left = lowerA ? asciiLowercase(x[offset]) : x[offset]
            let right = lowerB ? asciiLowercase(y[offset]) : y[offset]
            if left != right { return false }
        }
        return true
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
