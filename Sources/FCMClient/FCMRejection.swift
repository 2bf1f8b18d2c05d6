public import HTTP2Client
import PayloadBuilder

/// A non-200 answer from FCM, read from Google's error body
/// (`{"error":{"code","message","status","details":[…]}}`) and classified.
public struct FCMRejection: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// The FcmError detail's `errorCode`. Without that detail, the code the
    /// status stands for (400 INVALID_ARGUMENT, 429 QUOTA_EXCEEDED,
    /// 500 INTERNAL, 503 UNAVAILABLE), else UNSPECIFIED_ERROR.
    public var errorCode: FCMErrorCode
    /// Whether the body carried a `google.firebase.fcm.v1.FcmError` detail.
    /// A 401/403 without one is about our OAuth access token, not the message.
    public var hasFCMErrorDetail: Bool
    /// The `google.rpc` status name (`NOT_FOUND`, `UNAUTHENTICATED`, …), when sent.
    public var rpcStatus: String?
    /// Google's message, e.g. "The registration token is not a valid FCM registration token".
    public var message: String
    /// The `google.rpc.BadRequest` field violations, when sent.
    public var fieldViolations: [FCMFieldViolation]
    /// The `Retry-After` header, in delta-seconds.
    public var retryAfter: Duration?
    /// The `google.firebase.fcm.v1.ApnsError` detail: what APNs answered
    /// FCM for an iOS device, when sent.
    public var apnsError: FCMApnsError?
    /// What to do about it; the client may narrow it.
    public var verdict: ProviderVerdict

    public init(status: Int, errorCode: FCMErrorCode, hasFCMErrorDetail: Bool = true, rpcStatus: String? = nil,
                message: String = "", fieldViolations: [FCMFieldViolation] = [], retryAfter: Duration? = nil,
                apnsError: FCMApnsError? = nil) {
        self.status = status
        self.errorCode = errorCode
        self.hasFCMErrorDetail = hasFCMErrorDetail
        self.rpcStatus = rpcStatus
        self.message = message
        self.fieldViolations = fieldViolations
        self.retryAfter = retryAfter
        self.apnsError = apnsError
        // INVALID_ARGUMENT with APNs's 410 Unregistered under it (PROTOCOLS.md
        // B4) is a dead device token, as if FCM had said UNREGISTERED.
        let tokenIsInvalid = Self.namesTheRegistrationToken(message: message, fieldViolations: fieldViolations)
            || apnsError?.saysTheDeviceTokenIsDead == true
        verdict = errorCode.verdict(status: status, tokenIsInvalid: tokenIsInvalid, retryAfter: retryAfter, message: message)
    }

    /// True when the caller must delete the registration token.
    public var dropsToken: Bool { verdict.dropsToken }

    /// The reason a caller is given: the FCM error code; without one (an
    /// answer with no FcmError detail, e.g. the OAuth token or an IAM
    /// permission refused), the RPC status (`UNAUTHENTICATED`,
    /// `PERMISSION_DENIED`, …), which says what to fix.
    public var reason: String {
        guard errorCode == .unspecified, let rpcStatus, !rpcStatus.isEmpty else { return errorCode.rawValue }
        return rpcStatus
    }

    /// A 401 or 403 without an FcmError detail: our OAuth access token (or
    /// the service account's permission) was refused, not the message.
    public var isAboutTheAccessToken: Bool {
        (status == 401 || status == 403) && !hasFCMErrorDetail
    }

    /// Whether FCM said the registration token itself is malformed ("The
    /// registration token is not a valid FCM registration token", or a
    /// field violation on `message.token`, as in "Invalid value at
    /// 'message.token'").
    static func namesTheRegistrationToken(message: String, fieldViolations: [FCMFieldViolation]) -> Bool {
        let phrase = "not a valid fcm registration token"
        return message.lowercased().contains(phrase)
            || fieldViolations.contains { $0.field == "message.token" || $0.description.lowercased().contains(phrase) }
    }
}

/// The `google.firebase.fcm.v1.ApnsError` detail of an FCM error: the
/// status and reason APNs gave FCM for an iOS device.
public struct FCMApnsError: Sendable, Equatable {
    public var statusCode: Int?
    public var reason: String?

    public init(statusCode: Int?, reason: String?) {
        self.statusCode = statusCode
        self.reason = reason
    }

    /// Whether APNs said the device is gone: a 410, `Unregistered` or
    /// `ExpiredToken` (PROTOCOLS.md B4 records 410 Unregistered). Not
    /// `BadDeviceToken` or `DeviceTokenNotForTopic`: through FCM those
    /// usually mean the Firebase project's APNs setup is wrong (another
    /// bundle id, sandbox against production) for every iOS device of the
    /// app, and telling the caller to delete all those tokens could not be
    /// undone.
    public var saysTheDeviceTokenIsDead: Bool {
        statusCode == 410 || reason == "Unregistered" || reason == "ExpiredToken"
    }
}

/// One `google.rpc.BadRequest` field violation.
public struct FCMFieldViolation: Sendable, Equatable {
    /// The field, e.g. `message.data[0].value`; empty when Google sent none.
    public var field: String
    public var description: String

    public init(field: String, description: String) {
        self.field = field
        self.description = description
    }
}

extension FCMRejection {
    static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"
    static let apnsErrorType = "type.googleapis.com/google.firebase.fcm.v1.ApnsError"

    /// Reads an FCM error response; a body that is not Google's shape still
    /// gives a rejection classified by its status.
    init(status: Int, body: [UInt8], retryAfterHeader: String?, now: Int64) {
        var code: FCMErrorCode?
        var rpcStatus: String?
        var message = ""
        var violations: [FCMFieldViolation] = []
        var apnsError: FCMApnsError?
        if let document = try? JSONParser.parse(body), let error = document["error"] {
            if case .string(let text)? = error["message"] { message = text }
            if case .string(let text)? = error["status"] { rpcStatus = text }
            if case .array(let details)? = error["details"] {
                for detail in details {
                    guard case .string(let type)? = detail["@type"] else { continue }
                    if type == Self.fcmErrorType, case .string(let text)? = detail["errorCode"] {
                        code = FCMErrorCode(text)
                    } else if type == Self.badRequestType, case .array(let list)? = detail["fieldViolations"] {
                        for item in list {
                            var violation = FCMFieldViolation(field: "", description: "")
                            if case .string(let field)? = item["field"] { violation.field = field }
                            if case .string(let text)? = item["description"] { violation.description = text }
                            violations.append(violation)
                        }
                    } else if type == Self.apnsErrorType {
                        var found = FCMApnsError(statusCode: nil, reason: nil)
                        if case .int(let code)? = detail["statusCode"] { found.statusCode = Int(exactly: code) }
                        if case .string(let reason)? = detail["reason"] { found.reason = reason }
                        apnsError = found
                    }
                }
            }
        }
        let retryAfter = retryAfterHeader.flatMap { RetryAfter.duration($0, now: now) }
        self.init(status: status, errorCode: code ?? Self.impliedCode(status: status, rpcStatus: rpcStatus),
                  hasFCMErrorDetail: code != nil, rpcStatus: rpcStatus, message: message,
                  fieldViolations: violations, retryAfter: retryAfter, apnsError: apnsError)
    }

    /// The FCM code a status stands for when the body has no FcmError detail.
    static func impliedCode(status: Int, rpcStatus: String?) -> FCMErrorCode {
        switch (rpcStatus, status) {
        case ("INVALID_ARGUMENT", _), (nil, 400): return .invalidArgument
        case ("RESOURCE_EXHAUSTED", _), (nil, 429): return .quotaExceeded
        case ("UNAVAILABLE", _), (nil, 503): return .unavailable
        case ("INTERNAL", _), (nil, 500): return .internal
        default: return .unspecified
        }
    }
}
