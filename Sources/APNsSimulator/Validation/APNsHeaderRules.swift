/// Apple's rules on the `apns-*` header values (PROTOCOLS.md A2, A5), in
/// one place for the APNs simulator (both of `RequestValidator`'s paths)
/// and for the headers FCM relays to APNs (`FCMAPNsHeaders`).
///
/// Values are compared as UTF-8 bytes: Apple reads bytes, and two values
/// that are only canonically equivalent are not the same value.
enum APNsHeaderRules {
    /// The push types Apple lists (PROTOCOLS.md A2).
    static let pushTypes: [String] = [
        "alert", "background", "location", "voip", "complication", "fileprovider",
        "liveactivity", "pushtotalk", "widgets", "controls", "mdm",
    ]
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
