/// One scripted answer to a valid `messages:send` request: success, or an
/// FCM error written exactly as Google writes it (PROTOCOLS.md B4):
/// `{"error":{"code","message","status","details":[{FcmError errorCode}]}}`.
///
/// Used with `FCMSimulator.script(token:…)` and `always(token:_:)`.
public struct FCMSimulatorResponse: Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status, e.g. 200, 404, 429.
    public var status: Int
    /// The `google.rpc.Code` name (`NOT_FOUND`, …); `nil` for 200.
    public var rpcStatus: String?
    /// The FcmError detail's `errorCode`; `nil` for 200 or for an error
    /// without an FcmError detail.
    public var errorCode: String?
    /// The error's `message`.
    public var message: String?
    /// A `Retry-After` header, in seconds.
    public var retryAfter: Int?

    /// Any answer.
    public init(status: Int, rpcStatus: String?, errorCode: String?, message: String?, retryAfter: Int? = nil) {
        self.status = status
        self.rpcStatus = rpcStatus
        self.errorCode = errorCode
        self.message = message
        self.retryAfter = retryAfter
    }

    /// 200 with `{"name":"projects/…/messages/0:…"}`.
    public static let success = FCMSimulatorResponse(status: 200, rpcStatus: nil, errorCode: nil, message: nil)

    /// 404 UNREGISTERED: the app was uninstalled or the token expired.
    public static let unregistered = FCMSimulatorResponse(
        status: 404, rpcStatus: "NOT_FOUND", errorCode: "UNREGISTERED", message: "Requested entity was not found.")

    /// 400 INVALID_ARGUMENT naming the token: a malformed registration token.
    public static let invalidRegistrationToken = FCMSimulatorResponse(
        status: 400, rpcStatus: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT",
        message: "The registration token is not a valid FCM registration token")

    /// 403 SENDER_ID_MISMATCH: the token belongs to another project.
    public static let senderIDMismatch = FCMSimulatorResponse(
        status: 403, rpcStatus: "PERMISSION_DENIED", errorCode: "SENDER_ID_MISMATCH", message: "SenderId mismatch")

    /// 500 INTERNAL.
    public static let internalError = FCMSimulatorResponse(
        status: 500, rpcStatus: "INTERNAL", errorCode: "INTERNAL", message: "Internal error encountered.")

    /// 401 THIRD_PARTY_AUTH_ERROR: FCM's APNs or web-push credential was refused.
    public static let thirdPartyAuthError = FCMSimulatorResponse(
        status: 401, rpcStatus: "UNAUTHENTICATED", errorCode: "THIRD_PARTY_AUTH_ERROR",
        message: "Auth error from APNS or Web Push Service")

    /// 429 QUOTA_EXCEEDED, with `Retry-After` when given.
    public static func quotaExceeded(retryAfter: Int? = nil) -> FCMSimulatorResponse {
        FCMSimulatorResponse(status: 429, rpcStatus: "RESOURCE_EXHAUSTED", errorCode: "QUOTA_EXCEEDED",
                             message: "Quota exceeded for quota metric 'Send requests' and limit 'Send requests per minute'.",
                             retryAfter: retryAfter)
    }

    /// 503 UNAVAILABLE, with `Retry-After` when given.
    public static func unavailable(retryAfter: Int? = nil) -> FCMSimulatorResponse {
        FCMSimulatorResponse(status: 503, rpcStatus: "UNAVAILABLE", errorCode: "UNAVAILABLE",
                             message: "The service is currently unavailable.", retryAfter: retryAfter)
    }

    public var description: String {
        var text = "\(status)"
        if let errorCode { text += " \(errorCode)" } else if let rpcStatus { text += " \(rpcStatus)" }
        if let retryAfter { text += " retry-after \(retryAfter)" }
        return text
    }
}
