import GatewayHTTP
public import PayloadBuilder

extension ErrorCode {
    /// `mode=async` on a gateway with no queue configured (no Redis): the
    /// event was not taken. Not retryable here; send it without `mode`.
    public static let asyncUnavailable = ErrorCode("async_unavailable", httpStatus: 501)
    /// A `mode` other than `async` (or `sync`).
    public static let invalidMode = ErrorCode("invalid_mode", httpStatus: 400)
    /// The event's queue holds its maximum of events not yet delivered:
    /// nothing was queued. Retryable.
    public static let queueFull = ErrorCode("queue_full", httpStatus: 503)
}

/// The answers of an async notify that was not queued.
enum AsyncRefusal {
    static let unavailable = response(.asyncUnavailable, field: "mode",
        "this gateway has no queue for async mode (it needs PUSHGW_REDIS_URL); send the event without mode=async")
    static let invalidMode = response(.invalidMode, field: "mode", "mode must be async or sync", retryAfter: false)
    static let queueFull = response(.queueFull, field: nil,
        "the app's queue is full; nothing was queued: send it again later with the same event_id")
    static let storeUnavailable = response(.storeUnavailable, field: nil,
        "the queue's store cannot be reached; nothing was queued: send it again with the same event_id")

    static func response(_ code: ErrorCode, field: String?, _ message: String, retryAfter: Bool = true) -> HTTPResponse {
        var response = HTTPResponse(status: code.httpStatus, body: EventError(code, field: field, message).jsonBody)
        if code.httpStatus == 503 && retryAfter { response.headers = [HTTPHeaderField("Retry-After", "1")] }
        return response
    }
}
