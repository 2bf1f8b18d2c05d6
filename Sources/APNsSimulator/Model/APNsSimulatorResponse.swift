/// One answer the simulator gives to a valid request: a status, and for an
/// error a reason (and for 410 a timestamp), written as Apple writes them.
///
/// Used to script per-token answers (`APNsSimulator.script(token:…)`);
/// the wire form is `:status`, `apns-id`, and for errors the JSON body
/// `{"reason":"…"}` or `{"reason":"Unregistered","timestamp":…}`.
public struct APNsSimulatorResponse: Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status, e.g. 200, 410, 429, 503.
    public var status: Int
    /// Apple's reason string; `nil` for 200.
    public var reason: String?
    /// For 410: when APNs learned the token was no longer valid, in
    /// milliseconds since the UNIX epoch.
    public var timestampMilliseconds: Int64?

    /// An answer with any status and reason.
    public init(status: Int, reason: String?, timestampMilliseconds: Int64? = nil) {
        self.status = status
        self.reason = reason
        self.timestampMilliseconds = timestampMilliseconds
    }

    /// 200, empty body.
    public static let success = APNsSimulatorResponse(status: 200, reason: nil)
    /// 400 BadDeviceToken.
    public static let badDeviceToken = APNsSimulatorResponse(status: 400, reason: "BadDeviceToken")
    /// 400 DeviceTokenNotForTopic.
    public static let deviceTokenNotForTopic = APNsSimulatorResponse(status: 400, reason: "DeviceTokenNotForTopic")
    /// 403 Forbidden.
    public static let forbidden = APNsSimulatorResponse(status: 403, reason: "Forbidden")
    /// 410 ExpiredToken, with the time the token stopped being valid (Apple
    /// sends a `timestamp` with every 410, PROTOCOLS.md A5).
    public static func expiredToken(timestampMilliseconds: Int64) -> APNsSimulatorResponse {
        APNsSimulatorResponse(status: 410, reason: "ExpiredToken", timestampMilliseconds: timestampMilliseconds)
    }
    /// 429 TooManyRequests (too many requests for one device token).
    public static let tooManyRequests = APNsSimulatorResponse(status: 429, reason: "TooManyRequests")
    /// 500 InternalServerError.
    public static let internalServerError = APNsSimulatorResponse(status: 500, reason: "InternalServerError")
    /// 503 ServiceUnavailable.
    public static let serviceUnavailable = APNsSimulatorResponse(status: 503, reason: "ServiceUnavailable")
    /// 503 Shutdown.
    public static let shutdown = APNsSimulatorResponse(status: 503, reason: "Shutdown")

    /// 410 Unregistered, with the time the token became invalid.
    public static func unregistered(timestampMilliseconds: Int64) -> APNsSimulatorResponse {
        APNsSimulatorResponse(status: 410, reason: "Unregistered", timestampMilliseconds: timestampMilliseconds)
    }

    /// The JSON body Apple sends: empty for 200, else `{"reason":…}` with
    /// `"timestamp"` when set.
    var body: [UInt8] {
        guard let reason else { return [] }
        var text = #"{"reason":"# + JSONText.quoted(reason)
        if let timestampMilliseconds { text += #","timestamp":\#(timestampMilliseconds)"# }
        text += "}"
        return Array(text.utf8)
    }

    public var description: String {
        var text = "\(status)"
        if let reason { text += " \(reason)" }
        if let timestampMilliseconds { text += " @\(timestampMilliseconds)" }
        return text
    }
}
