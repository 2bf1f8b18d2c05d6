/// One HTTP request to a provider, as rendered for one device: what the
/// transport sends, minus the `authorization` header, which the transport
/// adds from its token source.
public struct ProviderRequest: Sendable, Equatable {
    public var platform: Platform
    /// The recipient's position in the event, to report the outcome against.
    public var recipientIndex: Int
    public var token: String
    /// The origin, e.g. `https://api.push.apple.com`.
    public var origin: String
    /// The request path, e.g. `/3/device/<token>`.
    public var path: String
    /// Request headers in sending order (lowercase names), without `authorization`.
    public var headers: [Header]
    /// The compact JSON body, exactly as sent (for `webpush` the plaintext,
    /// which the transport encrypts per message, RFC 8291): a slice of one
    /// array that holds the bodies of every request rendered from the same
    /// event.
    public var body: ArraySlice<UInt8>
    /// A `webpush` subscription's keys, to encrypt to; nil for every other platform.
    public var webPushKeys: WebPushKeys? = nil

    public var method: String { "POST" }
    public var url: String { origin + path }

    /// The `authorization` scheme `/v1/render` shows (the credential redacted).
    var authorizationScheme: StaticString { platform == .webpush ? "vapid" : "bearer" }

    /// One request header.
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The headers of every FCM request, one array shared by all of them
    /// (no allocation per device).
    static let fcmHeaders = [Header("content-type", "application/json")]

    /// The headers of a `webpush` request after `ttl`, `urgency` and
    /// `topic` (RFC 8030 §5, RFC 8291 §4), one array shared by all of them.
    static let webPushContentHeaders = [Header("content-encoding", "aes128gcm"),
                                        Header("content-type", "application/octet-stream")]

    public func header(_ name: String) -> String? {
        headers.first(where: { $0.name == name })?.value
    }
}

/// A recipient the gateway will not send to, and why.
public struct SkippedRecipient: Sendable, Equatable {
    public var recipientIndex: Int
    public var platform: Platform
    public var token: String
    /// `self`: the recipient is the sender, or the sender is a configured
    /// self-sender; `platform_not_configured`: the app has no credentials for
    /// the platform (the decoder refuses such events for APNs and FCM; this
    /// covers hand-built ones), and every `webpush` recipient of an app
    /// without a VAPID key (`AppProfile.sendsWebPush`).
    public var reason: String
    /// For a `webpush` recipient: the plaintext JSON its message would be
    /// (`WebPushPlaintextTemplate`), before encryption; nil otherwise.
    public var plaintext: [UInt8]? = nil

    /// The reason of a recipient whose platform the app cannot send to.
    public static let platformNotConfigured = "platform_not_configured"
}
