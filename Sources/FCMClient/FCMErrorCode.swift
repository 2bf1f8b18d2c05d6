/// An FCM v1 error code (the `errorCode` of the
/// `google.firebase.fcm.v1.FcmError` detail), as an open set: every code
/// Google documents is a static member, and an unknown one is still a value.
public struct FCMErrorCode: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// No more information; log it.
    public static let unspecified = FCMErrorCode("UNSPECIFIED_ERROR")
    /// 400: the request is malformed; when the message says the registration
    /// token is not valid, the token is.
    public static let invalidArgument = FCMErrorCode("INVALID_ARGUMENT")
    /// 404: the app was uninstalled or the token expired.
    public static let unregistered = FCMErrorCode("UNREGISTERED")
    /// 403: the token belongs to another sender (project).
    public static let senderIDMismatch = FCMErrorCode("SENDER_ID_MISMATCH")
    /// 429: the project's or the device's quota was exceeded.
    public static let quotaExceeded = FCMErrorCode("QUOTA_EXCEEDED")
    /// 503: FCM is overloaded.
    public static let unavailable = FCMErrorCode("UNAVAILABLE")
    /// 500: an unknown internal error.
    public static let `internal` = FCMErrorCode("INTERNAL")
    /// 401: FCM's APNs certificate/key or web-push credential was refused.
    public static let thirdPartyAuthError = FCMErrorCode("THIRD_PARTY_AUTH_ERROR")
    /// The legacy name of ``thirdPartyAuthError``.
    public static let apnsAuthError = FCMErrorCode("APNS_AUTH_ERROR")
}
