/// A Google API error, written as Google writes it (PROTOCOLS.md B4):
///
/// `{"error":{"code":400,"message":"…","status":"INVALID_ARGUMENT","details":[
/// {"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"…"},
/// {"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"…","description":"…"}]}]}}`
///
/// FCM's own checks carry the FcmError detail; errors raised before FCM sees
/// the message (authentication, JSON Google cannot parse into a `Message`)
/// carry none, as at Google.
struct GoogleError: Error, Sendable {
    /// One `google.rpc.BadRequest` field violation; `field` is omitted when nil.
    struct FieldViolation: Sendable {
        var field: String?
        var description: String
    }

    var httpStatus: Int
    /// The `google.rpc.Code` name.
    var status: String
    var message: String
    /// The FcmError detail's `errorCode`, when FCM raised the error.
    var fcmErrorCode: String?
    var fieldViolations: [FieldViolation] = []
    /// Further detail objects, as JSON text (`ErrorInfo`, `QuotaFailure`).
    var otherDetails: [String] = []
    /// A `Retry-After` header, in seconds.
    var retryAfter: Int?
    /// Adds `www-authenticate: Bearer realm="https://accounts.google.com/"` (401s).
    var asksForBearer = false

    /// What `FCMSimulatorStatistics.rejectedPerErrorCode` counts it under.
    var statisticsKey: String { fcmErrorCode ?? status }

    /// The JSON body.
    var body: [UInt8] {
        var details: [String] = []
        if let fcmErrorCode {
            details.append(JSONText.object([
                ("@type", JSONText.quoted("type.googleapis.com/google.firebase.fcm.v1.FcmError")),
                ("errorCode", JSONText.quoted(fcmErrorCode)),
            ]))
        }
        if !fieldViolations.isEmpty {
            let violations = fieldViolations.map { violation -> String in
                var members: [(String, String)] = []
                if let field = violation.field { members.append(("field", JSONText.quoted(field))) }
                members.append(("description", JSONText.quoted(violation.description)))
                return JSONText.object(members)
            }
            details.append(JSONText.object([
                ("@type", JSONText.quoted("type.googleapis.com/google.rpc.BadRequest")),
                ("fieldViolations", "[" + violations.joined(separator: ",") + "]"),
            ]))
        }
        details += otherDetails
        var members: [(String, String)] = [
            ("code", String(httpStatus)),
            ("message", JSONText.quoted(message)),
            ("status", JSONText.quoted(status)),
        ]
        if !details.isEmpty { members.append(("details", "[" + details.joined(separator: ",") + "]")) }
        return Array(JSONText.object([("error", JSONText.object(members))]).utf8)
    }

    /// The HTTP/2 answer: status, JSON content type, `retry-after` and
    /// `www-authenticate` when set, the body.
    var answer: HTTP2Answer {
        var headers: [(name: String, value: String)] = [("content-type", "application/json; charset=UTF-8")]
        if let retryAfter { headers.append(("retry-after", String(retryAfter))) }
        if asksForBearer { headers.append(("www-authenticate", #"Bearer realm="https://accounts.google.com/""#)) }
        return HTTP2Answer(status: httpStatus, headers: headers, body: body)
    }

    /// An INVALID_ARGUMENT raised by FCM itself (FcmError detail), with one
    /// field violation when `field` or `description` is given.
    static func invalidArgument(_ message: String, field: String? = nil, description: String? = nil) -> GoogleError {
        var error = GoogleError(httpStatus: 400, status: "INVALID_ARGUMENT", message: message,
                                fcmErrorCode: "INVALID_ARGUMENT")
        if field != nil || description != nil {
            error.fieldViolations = [FieldViolation(field: field, description: description ?? message)]
        }
        return error
    }

    /// A JSON payload Google cannot read into a `Message`: every violation,
    /// messages joined by newlines, and no FcmError detail.
    static func unparsable(_ violations: [FieldViolation]) -> GoogleError {
        GoogleError(httpStatus: 400, status: "INVALID_ARGUMENT",
                    message: violations.map(\.description).joined(separator: "\n"),
                    fieldViolations: violations)
    }

    /// A body that is not JSON (or too large to read): Google's one violation.
    static var unexpectedToken: GoogleError {
        unparsable([FieldViolation(field: nil, description: "Invalid JSON payload received. Unexpected token.")])
    }

    /// 401 for a missing, unknown or expired access token; no FcmError detail.
    static func unauthenticated(missing: Bool) -> GoogleError {
        let message = missing
            ? "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
            : "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
        return GoogleError(httpStatus: 401, status: "UNAUTHENTICATED", message: message, asksForBearer: true)
    }

    /// 403 for a project the credentials may not send for; no FcmError detail.
    static func permissionDenied(project: String) -> GoogleError {
        let resource = "//cloudresourcemanager.googleapis.com/projects/\(project)"
        let info = JSONText.object([
            ("@type", JSONText.quoted("type.googleapis.com/google.rpc.ErrorInfo")),
            ("reason", JSONText.quoted("IAM_PERMISSION_DENIED")),
            ("domain", JSONText.quoted("cloudresourcemanager.googleapis.com")),
            ("metadata", JSONText.object([("permission", JSONText.quoted("cloudmessaging.messages.create")),
                                          ("resource", JSONText.quoted("projects/\(project)"))])),
        ])
        return GoogleError(httpStatus: 403, status: "PERMISSION_DENIED",
                           message: "Permission 'cloudmessaging.messages.create' denied on resource '\(resource)' (or it may not exist).",
                           otherDetails: [info])
    }

    /// 400 for a body that is not sent as `application/json` (PROTOCOLS.md
    /// B1); raised before FCM sees the message, so no FcmError detail.
    static func unsupportedContentType(_ contentType: String?) -> GoogleError {
        GoogleError(httpStatus: 400, status: "INVALID_ARGUMENT",
                    message: "Invalid Content-Type \(contentType.map { JSONText.quoted($0) } ?? "(none)"): the request body must be application/json.")
    }

    /// 404 for a path that names no method; no FcmError detail.
    static func notFound(path: String) -> GoogleError {
        GoogleError(httpStatus: 404, status: "NOT_FOUND", message: "The requested URL \(path) was not found on this server.")
    }
}

extension GoogleError {
    /// The error a scripted `FCMSimulatorResponse` stands for.
    init(scripted response: FCMSimulatorResponse) {
        self.init(httpStatus: response.status, status: response.rpcStatus ?? "UNKNOWN",
                  message: response.message ?? "", fcmErrorCode: response.errorCode, retryAfter: response.retryAfter)
        if response.status == 429 {
            otherDetails.append(JSONText.object([
                ("@type", JSONText.quoted("type.googleapis.com/google.rpc.QuotaFailure")),
                ("violations", "[" + JSONText.object([
                    ("subject", JSONText.quoted("project_number:0")),
                    ("description", JSONText.quoted("Send requests per minute")),
                ]) + "]"),
            ]))
        }
        if response.status == 401 { asksForBearer = true }
    }
}
