/// Apple's rules on the `apns-*` header values (PROTOCOLS.md A2, A5), in
/// one place for the APNs simulator (both of `RequestValidator`'s paths)
/// and for the headers FCM relays to APNs (`FCMAPNsHeaders`).
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
    /// The push types Apple lists (PROTOCOLS.md A2).
    static let pushTypes: [String] = topicSuffixes.map(\.pushType)
    /// The same table as bytes, for the fast path.
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
    static func isPushType(_ text: String) -> Bool { pushTypes.contains { $0.utf8.elementsEqual(text.utf8) } }

    /// The priority `text` names: exactly `10`, `5` or `1`; else `nil`
    /// (`BadPriority`).
    static func priority(_ text: String) -> Int? {
        if text.utf8.elementsEqual("10".utf8) { return 10 }
        if text.utf8.elementsEqual("5".utf8) { return 5 }
        if text.utf8.elementsEqual("1".utf8) { return 1 }
        return nil
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

    /// Epoch seconds: decimal digits that fit an Int64 (`BadExpirationDate`).
    static func expiration(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }
}
