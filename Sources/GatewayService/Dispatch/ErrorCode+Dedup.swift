import GatewayHTTP
public import PayloadBuilder

extension ErrorCode {
    /// The dedup store cannot be reached: the event was not claimed and
    /// nothing was sent. Retryable.
    public static let storeUnavailable = ErrorCode("store_unavailable", httpStatus: 503)
    /// Another dispatch of the same `event_id` (on this or another replica)
    /// still held its claim when the request's deadline came: nothing was
    /// sent for this request. Retryable: a retry is answered from that
    /// dispatch's record, or sends once its claim lapses.
    public static let inProgress = ErrorCode("in_progress", httpStatus: 409)
}

/// The answers of a notify that the dedup store keeps from being sent.
enum DedupRefusal {
    /// 503 `store_unavailable`, with `Retry-After: 1`.
    static let storeUnavailable = response(.storeUnavailable, field: nil,
        "the dedup store cannot be reached, so the event could not be claimed; nothing was sent: send it again "
            + "with the same event_id")

    /// 409 `in_progress`, with `Retry-After: 1`.
    static let inProgress = response(.inProgress, field: "event_id",
        "another request with this event_id (on this or another instance) was still being sent when this one's deadline "
            + "came; nothing was sent for this one: send it again with the same event_id, it is answered from that request's "
            + "results once they are recorded")

    private static func response(_ code: ErrorCode, field: String?, _ message: String) -> HTTPResponse {
        var response = HTTPResponse(status: code.httpStatus, body: EventError(code, field: field, message).jsonBody)
        response.headers = [HTTPHeaderField("Retry-After", "1")]
        return response
    }
}
