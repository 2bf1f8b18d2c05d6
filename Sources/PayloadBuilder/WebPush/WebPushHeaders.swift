/// The web push delivery headers of one event (RFC 8030 §5.2–5.4), the
/// same for every browser it goes to: `TTL`, `Urgency` and `Topic`.
/// FCM v1 takes them as `webpush.headers`; the direct transport sends them.
struct WebPushHeaders {
    /// `TTL`: the event's `ttl_seconds` (default 86400, at most four
    /// weeks; 0: deliver now or never), in decimal seconds.
    let ttl: Int
    /// `Urgency`: `high` for a high-priority event, else `normal`.
    let urgency: String
    /// `Topic`: replaces a message of the same conversation still waiting
    /// at the push service (see `topic(conversationID:)`).
    let topic: String

    /// The headers of a direct web push request, in sending order
    /// (lowercase names, as HTTP/2 sends them).
    var requestHeaders: [ProviderRequest.Header] {
        [ProviderRequest.Header("ttl", String(ttl)), ProviderRequest.Header("urgency", urgency),
         ProviderRequest.Header("topic", topic)] + ProviderRequest.webPushContentHeaders
    }

    init(event: borrowing Event) {
        ttl = event.notification.ttlSeconds
        urgency = event.notification.priority == .high ? "high" : "normal"
        topic = Self.topic(conversationID: event.conversation.id)
    }

    /// A `Topic` for the conversation: RFC 8030 §5.4 allows at most 32
    /// characters of the URL-safe base64 alphabet, and a conversation id
    /// may be longer or hold any character; so the first 24 bytes of the
    /// id's SHA-256, base64url (32 characters, no padding). The same
    /// conversation always gives the same topic, so a newer message
    /// replaces an older one not yet delivered; the id cannot be read back
    /// from it by the push service.
    static func topic(conversationID: String) -> String {
        WebSafeBase64.encode(SHA256.digest(conversationID.utf8).prefix(24))
    }
}
