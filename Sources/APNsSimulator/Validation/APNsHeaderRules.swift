/// Apple's rules on the `apns-*` header values (PROTOCOLS.md A2, A5), in
/// one place for the APNs simulator (`RequestValidator`, on the header
/// bytes) and for the headers FCM relays to APNs (`FCMAPNsHeaders`).
///
/// Values are compared as UTF-8 bytes: Apple reads bytes, and two values
/// that are only canonically equivalent are not the same value.
enum APNsHeaderRules {
    /// The push types Apple lists, each with the suffix its topic must
    /// carry after the bundle ID (PROTOCOLS.md A2). `mdm`'s topic is the
    /// UID from the MDM certificate, which the simulator configures as a
    /// topic of its own, so it takes no suffix either.
    static let topicSuffixes: [(pushType: String, suffix: String)] = [
        ("alert", ""), ("background", ""), ("location", ".location-query"), ("voip", ".voip"),
        ("complication", ".complication"), ("fileprovider", ".pushkit.fileprovider"),
        ("liveactivity", ".push-type.liveactivity"), ("pushtotalk", ".voip-ptt"),
        ("widgets", ".push-type.widgets"), ("controls", ".push-type.controls"), ("mdm", ""),
    ]
    /// The same table as bytes.
    static let topicSuffixBytes: [(pushType: [UInt8], suffix: [UInt8])] = topicSuffixes.map { (Array($0.pushType.utf8), Array($0.suffix.utf8)) }

    /// Whether a push of type `pushType` may go to a topic that ends in
    /// `suffix` after its bundle ID (`""`: the bundle ID itself). The push
    /// type and the topic must name the same kind of push: `voip` only on
    /// `<bundle>.voip`, `alert` only on `<bundle>`, and so on (A2's table).
    ///
    /// Apple documents no reason for a mismatch. The simulator answers 400
    /// `BadTopic` ("the apns-topic was invalid"): the push type is one of
    /// Apple's and so valid by itself (`InvalidPushType` is for a value
    /// that is not), while the topic is not one this push type can be sent
    /// to. A push without `apns-push-type` is not paired: Apple infers the
    /// kind from the topic (older VoIP providers send none).
    static func pairs(pushType: UnsafeBufferPointer<UInt8>, withSuffix suffix: UnsafeBufferPointer<UInt8>) -> Bool {
        for entry in topicSuffixBytes where entry.pushType.withUnsafeBufferPointer({ TextBytes.equal(pushType, $0) }) {
            return entry.suffix.withUnsafeBufferPointer { TextBytes.equal(suffix, $0) }
        }
        return false
    }

    /// `pairs(pushType:withSuffix:)` on Strings, compared as UTF-8 bytes.
    static func pairs(pushType: String, withSuffix suffix: String) -> Bool {
        var pushType = pushType
        var suffix = suffix
        return pushType.withUTF8 { type in suffix.withUTF8 { pairs(pushType: type, withSuffix: $0) } }
    }
    static let defaultPriority = 10
    static let collapseIDLimit = 64

    /// Whether `text` is one of Apple's push types.
    static func isPushType(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        topicSuffixBytes.contains { $0.pushType.withUnsafeBufferPointer { TextBytes.equal(text, $0) } }
    }

    /// `isPushType` on a String's bytes.
    static func isPushType(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isPushType($0) }
    }

    /// The priority `text` names: exactly `10`, `5` or `1`; else `nil`
    /// (`BadPriority`).
    static func priority(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        if TextBytes.equal(text, "10") { return 10 }
        if TextBytes.equal(text, "5") { return 5 }
        if TextBytes.equal(text, "1") { return 1 }
        return nil
    }

    /// `priority` on a String's bytes.
    static func priority(_ text: String) -> Int? {
        var text = text
        return text.withUTF8 { priority($0) }
    }

    /// Whether a push of type `pushType` (unsent: `nil`) may go at the
    /// effective `priority` (the header's, or the default 10): `background`
    /// only at 5 ("10 is an error"), `location` at 10 or 5; a push that only
    /// sets `content-available` (data-only) at 5. Anything else at any
    /// valid priority.
    static func allows(priority: Int, pushType: String?, contentAvailableOnly: Bool) -> Bool {
        guard var pushType else {
            return allows(priority: priority, pushType: UnsafeBufferPointer<UInt8>?.none, contentAvailableOnly: contentAvailableOnly)
        }
        return pushType.withUTF8 { allows(priority: priority, pushType: $0, contentAvailableOnly: contentAvailableOnly) }
    }

    /// `allows(priority:pushType:contentAvailableOnly:)` for the push type's
    /// bytes.
    static func allows(priority: Int, pushType: UnsafeBufferPointer<UInt8>?, contentAvailableOnly: Bool) -> Bool {
        if contentAvailableOnly, priority != 5 { return false }
        guard let pushType else { return true }
        if TextBytes.equal(pushType, "background") { return priority == 5 }
        if TextBytes.equal(pushType, "location") { return priority == 10 || priority == 5 }
        return true
    }

    /// At most 64 bytes (`BadCollapseId`).
    static func isValidCollapseID(_ text: String) -> Bool { text.utf8.count <= collapseIDLimit }

    /// Epoch seconds: decimal digits (leading zeros too) that fit an Int64
    /// (`BadExpirationDate`).
    static func expiration(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text {
            guard (0x30...0x39).contains(byte) else { return nil }
            let (times10, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowedAgain) = times10.addingReportingOverflow(Int64(byte - 0x30))
            guard !overflowed, !overflowedAgain else { return nil }
            value = sum
        }
        return value
    }

    /// `expiration` on a String's bytes.
    static func expiration(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { expiration($0) }
    }
}
