/// The `apns.headers` of an FCM message, which FCM relays to APNs
/// (PROTOCOLS.md B2): checked with APNs' own rules (`APNsHeaderRules`, A2),
/// with FCM's default `apns-priority` of 10 when none is given. APNs'
/// refusal comes back through FCM as 400 INVALID_ARGUMENT with an
/// `ApnsError {statusCode, reason}` detail (B4).
///
/// Header names are matched ASCII case-insensitively (HTTP names are
/// case-insensitive, and FCM lowercases them for HTTP/2); a name given
/// twice, in any case, leaves the later value.
struct FCMAPNsHeaders {
    private(set) var pushType: String?
    private(set) var priority: String?
    private(set) var id: String?
    private(set) var collapseID: String?
    private(set) var expiration: String?

    /// A header APNs' rules read.
    enum Name {
        case pushType, priority, id, collapseID, expiration
    }

    /// The header `name` (UTF-8 bytes, as written) is, if APNs' rules read
    /// it. The five names differ in length, so one comparison decides.
    static func name(_ name: UnsafeBufferPointer<UInt8>) -> Name? {
        let header: Name
        let lowercase: StaticString
        switch name.count {
        case 14: (header, lowercase) = (.pushType, "apns-push-type")
        case 13: (header, lowercase) = (.priority, "apns-priority")
        case 7: (header, lowercase) = (.id, "apns-id")
        case 16: (header, lowercase) = (.collapseID, "apns-collapse-id")
        case 15: (header, lowercase) = (.expiration, "apns-expiration")
        default: return nil
        }
        let expected = lowercase.utf8Start
        for offset in 0..<name.count {
            let byte = name[offset]
            guard ((0x41...0x5A).contains(byte) ? byte + 0x20 : byte) == expected[offset] else { return nil }
        }
        return header
    }

    /// Takes header `name`'s value (UTF-8 bytes); a later value of a header
    /// replaces an earlier one.
    mutating func set(_ name: Name, value: UnsafeBufferPointer<UInt8>) {
        let text = String(decoding: value, as: UTF8.self)
        switch name {
        case .pushType: pushType = text
        case .priority: priority = text
        case .id: id = text
        case .collapseID: collapseID = text
        case .expiration: expiration = text
        }
    }

    /// APNs' reason for refusing these headers, in Apple's order (push
    /// type, priority, id, collapse id, expiration), or `nil`.
    /// `contentAvailableOnly`: the push is data-only for iOS (`aps` sets
    /// `content-available: 1` and no `alert`, `badge` or `sound`, and the
    /// message has no notification title or body for FCM to show), which
    /// must go at priority 5 (B2).
    func refusal(contentAvailableOnly: Bool) -> String? {
        if let pushType, !APNsHeaderRules.isPushType(pushType) { return "InvalidPushType" }
        var effective = APNsHeaderRules.defaultPriority
        if let priority {
            guard let value = APNsHeaderRules.priority(priority) else { return "BadPriority" }
            effective = value
        }
        guard APNsHeaderRules.allows(priority: effective, pushType: pushType, contentAvailableOnly: contentAvailableOnly) else {
            return "BadPriority"
        }
        if let id, !APNsIdentifier.isValid(id) { return "BadMessageId" }
        if let collapseID, !APNsHeaderRules.isValidCollapseID(collapseID) { return "BadCollapseId" }
        if let expiration, APNsHeaderRules.expiration(expiration) == nil { return "BadExpirationDate" }
        return nil
    }

    /// No header yet (`FCMSendScanner` adds them as it reads).
    init() {}

    /// APNs' refusal as FCM relays it: INVALID_ARGUMENT with the FcmError
    /// and ApnsError details and a violation on `message.apns.headers`.
    static func error(reason: String) -> GoogleError {
        var error = GoogleError.invalidArgument("Request contains an invalid argument.", field: "message.apns.headers",
                                                description: "APNs refused the request: \(reason)")
        error.otherDetails.append(JSONText.object([
            ("@type", JSONText.quoted("type.googleapis.com/google.firebase.fcm.v1.ApnsError")),
            ("statusCode", "400"),
            ("reason", JSONText.quoted(reason)),
        ]))
        return error
    }
}
