/// The RFC 8030 request headers of a push message, checked strictly:
///
/// - `TTL` (§5.2) required: a non-negative decimal integer of at most 10
///   digits (no sign, no spaces) → else 400 `MissingTTL` / `BadTTL`.
/// - `Urgency` (§5.3) optional: `very-low`, `low`, `normal` or `high` → else 400 `BadUrgency`.
/// - `Topic` (§5.4) optional: 1 to 32 characters of the base64url alphabet → else 400 `BadTopic`.
/// - `Content-Encoding` `aes128gcm` (RFC 8291 §4, any ASCII case) for a
///   non-empty body → else 400 `BadContentEncoding`; the older `aesgcm`
///   draft coding is refused too. An empty body needs none.
enum WebPushHeaderRules {
    /// The checked headers.
    struct Headers: Equatable {
        let ttl: Int
        let urgency: String?
        let topic: String?
    }

    static func check(_ request: ReceivedRequest) -> Result<Headers, WebPushRefusal> {
        guard let ttlText = request.value("ttl") else {
            return .failure(refusal("MissingTTL", "The TTL header is required (RFC 8030 section 5.2)"))
        }
        guard !ttlText.isEmpty, ttlText.utf8.count <= 10, ttlText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let ttl = Int(ttlText) else {
            return .failure(refusal("BadTTL", "TTL is not a non-negative integer of seconds"))
        }
        let urgency = request.value("urgency")
        if let urgency, !["very-low", "low", "normal", "high"].contains(where: { $0.sameBytes(as: urgency) }) {
            return .failure(refusal("BadUrgency", "Urgency is not very-low, low, normal or high (RFC 8030 section 5.3)"))
        }
        let topic = request.value("topic")
        if let topic, topic.isEmpty || topic.utf8.count > 32 || !topic.utf8.allSatisfy(isBase64URL) {
            return .failure(refusal("BadTopic", "Topic is not 1 to 32 characters of the base64url alphabet (RFC 8030 section 5.4)"))
        }
        let encoding = request.value("content-encoding")
        if request.bodyLength > 0 || encoding != nil {
            guard let encoding, encoding.lowercased() == "aes128gcm" else {
                return .failure(refusal("BadContentEncoding", "Content-Encoding must be aes128gcm (RFC 8291 section 4)"))
            }
        }
        return .success(Headers(ttl: ttl, urgency: urgency, topic: topic))
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }

    private static func refusal(_ reason: String, _ message: String) -> WebPushRefusal {
        WebPushRefusal(status: 400, reason, message)
    }
}
