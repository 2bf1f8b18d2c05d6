/// The device tokens of an event seen so far, to refuse a device named twice.
///
/// A token's identity is the token itself, lowercased for APNs (hex: the
/// same device may be written in either case). Tokens have passed
/// `DeviceToken.problem`, so they are ASCII and identities compare byte for
/// byte. A small event is checked by a scan of the recipients kept, with no
/// allocation; past `linearLimit` recipients a dictionary of identities.
struct SeenTokens {
    static let linearLimit = 16

    private var tokens: [(token: String, lowercase: Bool, index: Int)] = []
    private var identities: [String: Int]?

    init(expected count: Int) {
        if count > SeenTokens.linearLimit {
            identities = [:]
            identities?.reserveCapacity(count)
        } else {
            tokens.reserveCapacity(count)
        }
    }

    /// Records `token` as recipient `index`; returns the index of the first
    /// recipient with the same identity when there is one.
    mutating func insert(_ token: String, platform: Platform, index: Int) -> Int? {
        let lowercase = platform == .apns
        if identities != nil {
            return identities!.updateValue(index, forKey: lowercase ? token.lowercased() : token)
        }
        for seen in tokens where SeenTokens.sameIdentity(seen.token, lowercasing: seen.lowercase, token, lowercasing: lowercase) {
            return seen.index
        }
        tokens.append((token, lowercase, index))
        return nil
    }

    /// Whether two ASCII tokens have the same identity, each side lowercased or not.
    static func sameIdentity(_ a: String, lowercasing lowerA: Bool, _ b: String, lowercasing lowerB: Bool) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                for offset in 0..<x.count {
                    let left = lowerA ? asciiLowercase(x[offset]) : x[offset]
                    let right = lowerB ? asciiLowercase(y[offset]) : y[offset]
                    if left != right { return false }
                }
                return true
            }
        }
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
