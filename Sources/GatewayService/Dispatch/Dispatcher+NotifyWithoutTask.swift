public import GatewayHTTP
import Foundation
import PayloadBuilder

/// `/v1/notify` answered without a Swift task: when nothing has to wait, the
/// event is rendered on the caller's thread (an event loop's, running
/// libmicrohttpd) and answered from the provider connections' threads (in
/// the gateway, the same loop's); anything that must wait takes the task
/// path of `notify(body:)`, with the same result.
extension Dispatcher {
    /// As `notify(body:)`, calling `completion` with the answer instead of
    /// suspending a task. When nothing has to wait (the dedup store and the
    /// avatar answer at once, no copy of the event is in flight, the
    /// providers' tokens are cached), the event is rendered on the caller's
    /// thread and answered from the provider connections' threads, with no
    /// task in between; anything else takes the task path, with the same result.
    public func notify(body: [UInt8], completion: @escaping @Sendable (HTTPResponse) -> Void) {
        let arrival = ContinuousClock.now
        let event: Event
        let app: AppProfile
        let key: String
        switch decodeForNotify(body) {
        case let .failure(refusal):
            return completion(refusal.response)
        case let .success(decoded):
            (event, app, key) = decoded
        }
        guard becomeOwner(of: key) else {
            Task { completion(await self.notify(event, app: app, key: key, arrival: arrival)) }
            return
        }
        // Read once owned: a copy that was dispatched in between is recorded by now.
        // Dedup before the avatar, as on the task path: a duplicate looks up no
        // avatar (and adds nothing to pushgw_avatar_fetch_total).
        guard case .notRecorded = dedup.lookupWithoutWaiting(key, now: arrival),
              let avatar = avatars.resolveWithoutWaiting(event.sender.avatarURL)
        else {
            release(key)
            Task { completion(await self.notify(event, app: app, key: key, arrival: arrival)) }
            return
        }
        // This call now owns `key`: every way out releases it.
        var results = [RecipientResult?](repeating: nil, count: event.recipients.count)
        let rendered: RenderedEvent
        switch renderForDelivery(event, app: app, avatar: avatar, results: &results) {
        case let .failure(refusal):
            release(key)
            return completion(refusal.response)
        case let .success(success):
            rendered = success
        }
        // Usually no recipient is answered yet (none skipped): every request is pending, as it is.
        let pending = results.contains(where: { $0 != nil }) ? rendered.requests.filter { results[$0.recipientIndex] == nil }
            : rendered.requests
        guard !pending.isEmpty else { return finishOwned(eventID: event.eventID, key: key, results: results.map { $0! }, completion: completion) }
        budget.recordAttempts(pending.count)
        let answered = results
        // The completion keeps the event's id, not the event (its copy, with
        // every field retained and released, showed in profiles).
        let eventID = event.eventID
        let deadline = sendingDeadline(arrival: arrival)
        sendOnce(pending, app: app, deadline: deadline) { outcomes in
            var final: [Int: RecipientResult] = [:]
            let retry = self.classify(pending, outcomes, app: app, into: &final)
            guard !retry.isEmpty else {
                self.countNotifications(final)
                return self.finishOwned(eventID: eventID, key: key, results: Self.merged(answered, final), completion: completion)
            }
            Task {
                await self.retrying(retry, app: app, deadline: deadline, final: &final)
                self.countNotifications(final)
                self.finishOwned(eventID: eventID, key: key, results: Self.merged(answered, final), completion: completion)
            }
        }
    }

    /// `finish` for a dispatch that owns `key` without a task: records the
    /// event (in a task only if the store must wait), releases the key, answers.
    func finishOwned(eventID: String, key: String, results: [RecipientResult],
                     completion: @escaping @Sendable (HTTPResponse) -> Void) {
        let answer = conclude(eventID: eventID, results: results, duplicate: false)
        let recorded = RecordedEvent.merging(nil, results)
        let expires = ContinuousClock.now + settings.dedupWindow
        guard dedup.recordWithoutWaiting(key, recorded, expires: expires) else {
            Task {
                await self.dedup.record(key, recorded, expires: expires)
                self.release(key)
                completion(answer.response(eventID: eventID))
            }
            return
        }
        release(key)
        completion(answer.response(eventID: eventID))
    }
}
