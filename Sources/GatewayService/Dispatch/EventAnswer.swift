import GatewayHTTP
import PayloadBuilder

/// The answer of `/v1/notify` for one event (API.md "The answer").
struct EventAnswer: Sendable {
    var results: [RecipientResult]
    var duplicate: Bool

    /// Every recipient ended sent, skipped or invalid_token.
    var allSettled: Bool { results.allSatisfy { $0.isSettled } }

    /// 200 when all settled, else 502 with the same body, so a caller that
    /// only looks at the status retries.
    func response(eventID: String) -> HTTPResponse {
        var writer = JSONWriter(capacity: 256 + results.count * 200)
        writer.beginObject()
        writer.member("event_id", eventID)
        writer.key("duplicate")
        writer.bool(duplicate)
        writer.key("results")
        writer.beginArray()
        for result in results {
            writer.beginObject()
            writer.member("platform", result.platform.rawValue)
            writer.member("token", result.token)
            writer.outcomeMembers(status: result.status, providerID: result.providerID, retryable: result.retryable,
                                  reason: result.reason, invalidSince: result.invalidSince)
            writer.endObject()
        }
        writer.endArray()
        writer.key("rejected")
        writer.beginArray()
        for result in results where result.status == .invalidToken { writer.string(result.token) }
        writer.endArray()
        writer.endObject()
        return HTTPResponse(status: allSettled ? 200 : 502, body: writer.bytes)
    }
}

extension JSONWriter {
    /// A device's outcome inside its result object, as the notify answer and
    /// the async event status both write it: `status`, then whichever of
    /// `provider_id`, `retryable`, `reason` and `invalid_since_ms` it has.
    mutating func outcomeMembers(status: RecipientResult.Status, providerID: String?, retryable: Bool?, reason: String?,
                                 invalidSince: Int64?) {
        member("status", status.rawValue)
        if let providerID { member("provider_id", providerID) }
        if let retryable {
            key("retryable")
            bool(retryable)
        }
        if let reason { member("reason", reason) }
        if let invalidSince { member("invalid_since_ms", invalidSince) }
    }
}
