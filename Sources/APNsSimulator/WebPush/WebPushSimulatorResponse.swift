/// One answer of the web push simulator: `201 Created`, or an error in the
/// shape Mozilla's autopush uses, `{"code","error","reason","message"}`
/// (`reason` a stable name for tests and statistics), with `Retry-After`
/// where given.
///
/// Validation answers with these, and per-subscription scripts
/// (`WebPushSimulator.script`, `always`) inject them.
public struct WebPushSimulatorResponse: Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status: 201, or 400, 401, 403, 404, 410, 413, 429, 5xx.
    public var status: Int
    /// A stable name of the refusal (`BadJWTAudience`, `MissingTTL`, …); nil for 201.
    public var reason: String?
    /// The human-readable `message`.
    public var message: String?
    /// A `Retry-After` header, in seconds.
    public var retryAfter: Int?

    /// Any answer.
    public init(status: Int, reason: String?, message: String? = nil, retryAfter: Int? = nil) {
        self.status = status
        self.reason = reason
        self.message = message
        self.retryAfter = retryAfter
    }

    /// 201 Created, with `Location` and the `TTL` echoed.
    public static let success = WebPushSimulatorResponse(status: 201, reason: nil)

    /// 404: the push service does not know the subscription.
    public static let notFound = WebPushSimulatorResponse(
        status: 404, reason: "NotFound", message: "No such subscription")

    /// 410 Gone: the subscription expired or the user unsubscribed.
    public static let gone = WebPushSimulatorResponse(
        status: 410, reason: "Gone", message: "The subscription has expired or was unsubscribed")

    /// 413: the body is over the service's limit.
    public static let payloadTooLarge = WebPushSimulatorResponse(
        status: 413, reason: "PayloadTooLarge", message: "The body is larger than 4096 bytes")

    /// 429, with `Retry-After` when given.
    public static func tooManyRequests(retryAfter: Int? = nil) -> WebPushSimulatorResponse {
        WebPushSimulatorResponse(status: 429, reason: "TooManyRequests", message: "Too many messages to this subscription",
                                 retryAfter: retryAfter)
    }

    /// 500.
    public static let internalServerError = WebPushSimulatorResponse(
        status: 500, reason: "InternalServerError", message: "An internal error occurred")

    /// 503, with `Retry-After` when given.
    public static func serviceUnavailable(retryAfter: Int? = nil) -> WebPushSimulatorResponse {
        WebPushSimulatorResponse(status: 503, reason: "ServiceUnavailable", message: "The service is unavailable",
                                 retryAfter: retryAfter)
    }

    /// HTTP's reason phrase for `status`, the body's `error`.
    var phrase: String { HTTPStatusPhrase.phrase(for: status) }

    /// The JSON body of an error answer.
    var body: [UInt8] {
        var members = [("code", String(status)), ("error", JSONText.quoted(phrase))]
        if let reason { members.append(("reason", JSONText.quoted(reason))) }
        if let message { members.append(("message", JSONText.quoted(message))) }
        return Array(JSONText.object(members).utf8)
    }

    public var description: String {
        var text = "\(status)"
        if let reason { text += " \(reason)" }
        if let retryAfter { text += " retry-after \(retryAfter)" }
        return text
    }
}

extension WebPushSimulatorResponse: ScriptedResponse {}

/// A refusal found while checking a request: the error side of the
/// checks' `Result`s, carrying the answer to give.
struct WebPushRefusal: Error {
    let response: WebPushSimulatorResponse

    init(_ response: WebPushSimulatorResponse) { self.response = response }

    init(status: Int, _ reason: String, _ message: String) {
        response = WebPushSimulatorResponse(status: status, reason: reason, message: message)
    }
}
