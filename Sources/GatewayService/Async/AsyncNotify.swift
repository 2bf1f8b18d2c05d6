public import DurableQueue
public import GatewayHTTP
import PayloadBuilder

/// The async mode's two endpoints: `POST /v1/notify?mode=async` validates
/// the event as a sync notify does and answers 202 once it is durably in
/// its app's queue (`DurableQueue`), and `GET /v1/events/{event_id}`
/// answers where a queued event stands and, once done, its recorded
/// per-device outcome from the dedup store.
///
/// The queue holds the body as it came, named by its `event_id`, with the
/// event's dedup key noted beside it: a consumer (`QueueWorker`) sends it
/// through the same pipeline as a sync notify, and the status endpoint
/// reads the record under that key.
public final class AsyncNotify: Sendable {
    let queue: any DurableQueue
    let dispatcher: Dispatcher

    public init(queue: any DurableQueue, dispatcher: Dispatcher) {
        self.queue = queue
        self.dispatcher = dispatcher
    }

    /// 202 `{"event_id", "status": "queued"}` once queued; the sync mode's
    /// 400s for an event it would refuse; 503 `queue_full` or
    /// `store_unavailable` (`Retry-After: 1`) when nothing was queued.
    public func enqueue(body: [UInt8]) async -> HTTPResponse {
        let event: Event
        let app: AppProfile
        do throws(EventError) {
            (event, app) = try EventDecoder(config: dispatcher.config).decode(body)
        } catch {
            return HTTPResponse(status: error.code.httpStatus, body: error.jsonBody)
        }
        let key = DedupKey.of(event, app: app.name)
        do {
            _ = try await queue.enqueue(app.name, name: event.eventID, payload: body, note: Array(key.utf8))
        } catch {
            dispatcher.logger.warning("event not queued", [("event_id", event.eventID), ("app", app.name), ("reason", error.description)])
            return error.kind == .full ? AsyncRefusal.queueFull : AsyncRefusal.storeUnavailable
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("event_id", event.eventID)
        writer.member("status", QueuedState.queued.rawValue)
        writer.endObject()
        return HTTPResponse(status: 202, body: writer.bytes)
    }

    /// `GET /v1/events/{event_id}`: the first app whose queue knows the
    /// event, its state, and the recorded result of each device (by the
    /// fingerprint the record keeps, never a token); 404 when no queue knows it.
    public func status(eventID: String) async -> HTTPResponse {
        for app in dispatcher.config.apps {
            let status: QueuedStatus?
            do {
                status = try await queue.status(app.name, name: eventID)
            } catch {
                return AsyncRefusal.response(.storeUnavailable, field: nil, "the queue's store cannot be reached: ask again")
            }
            guard let status else { continue }
            // Read in every state (a queued event taken over after a crash
            // may have a partial record), without a claim: a status read
            // must not make the consumer sending the event wait.
            let recorded: RecordedEvent?
            switch await dispatcher.dedup.lookup(String(decoding: status.note, as: UTF8.self)) {
            case let .success(record): recorded = record
            case .failure:
                return AsyncRefusal.response(.storeUnavailable, field: nil, "the dedup store cannot be reached: ask again")
            }
            return HTTPResponse(status: 200, body: Self.answer(eventID: eventID, app: app.name, state: status.state, recorded: recorded))
        }
        return HTTPResponse(status: 404, body: EventError(.notFound, field: "event_id",
            "no queue knows this event_id (never queued in async mode, or older than the queue's retention)").jsonBody)
    }

    static func answer(eventID: String, app: String, state: QueuedState, recorded: RecordedEvent?) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("event_id", eventID)
        writer.member("app", app)
        writer.member("status", state.rawValue)
        writer.key("results")
        writer.beginArray()
        for result in recorded?.results ?? [] {
            writer.beginObject()
            writer.member("platform", result.platform.rawValue)
            writer.member("device", result.device.hex)
            writer.outcomeMembers(status: result.status, providerID: result.providerID, retryable: result.retryable,
                                  reason: result.reason, invalidSince: result.invalidSince)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }
}

extension DeviceFingerprint {
    /// The fingerprint as 32 lowercase hex digits: the first 128 bits of the
    /// SHA-256 of the token (an APNs token in lowercase), which a caller can
    /// work out from a token it holds.
    public var hex: String {
        func digits(_ word: UInt64) -> String {
            let text = String(word, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }
        return digits(high) + digits(low)
    }
}
