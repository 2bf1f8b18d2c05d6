import GatewayHTTP
import PayloadBuilder

/// One decoded event's way through `/v1/notify`, each stage written once:
/// claimed (its turn among copies in flight, then what the dedup window
/// recorded of it) → avatar → rendered → sent → retried → recorded →
/// answered.
///
/// Continuation-passing: a stage calls the next as soon as its input is
/// ready, on the thread it runs on. Only a stage that truly waits goes on
/// later: a copy of the event in flight (its release starts a task), a dedup
/// store across the network (its callback), an avatar download, the
/// providers (their connections' threads), a retry's back-off (a task). With
/// the in-process store, a cached avatar and cached credentials, an event is
/// rendered on the caller's thread (an event loop's) and answered from the
/// provider connections' threads, with no task in between.
///
/// Immutable: what a stage learns is handed to the next as arguments, so a
/// run is safely passed between the threads its stages run on.
final class NotifyRun: Sendable {
    let dispatcher: Dispatcher
    let event: Event
    let app: AppProfile
    let key: String
    /// When the last attempt must end.
    let deadline: ContinuousClock.Instant
    let completion: @Sendable (HTTPResponse) -> Void

    init(_ dispatcher: Dispatcher, event: Event, app: AppProfile, key: String, deadline: ContinuousClock.Instant,
         completion: @escaping @Sendable (HTTPResponse) -> Void) {
        self.dispatcher = dispatcher
        self.event = event
        self.app = app
        self.key = key
        self.deadline = deadline
        self.completion = completion
    }

    /// What the dedup window held for the event when it was claimed.
    struct Past: Sendable {
        let recorded: RecordedEvent?
        /// Each recipient's device, fingerprinted once (to read the record
        /// and to add to it); nil when nothing was recorded.
        let devices: [RecordedDevice]?
        /// Some recipient was answered from the record.
        let duplicate: Bool
    }

    /// Claimed: the event's turn, then its record. A copy in flight makes it
    /// wait, and claim again once that copy is recorded.
    func start() {
        guard dispatcher.inFlight.claim(key, orWhenReleased: { self.start() }) else { return }
        // Read once claimed: a copy that was dispatched in between is recorded by now.
        dispatcher.dedup.lookup(key, now: .now) { recorded in self.resolveAvatar(after: recorded) }
    }

    /// Avatar: the devices the record settled are answered from it; an
    /// event that is all answered is a duplicate, sent nowhere, and looks up
    /// no avatar. Otherwise the avatar, when it is known without waiting;
    /// else downloaded, in at most half the time left to send (a slow one
    /// is dropped, never the notification).
    private func resolveAvatar(after recorded: RecordedEvent?) {
        var results = [RecipientResult?](repeating: nil, count: event.recipients.count)
        let devices = recorded.map { _ in event.recipients.map(RecordedDevice.init) }
        let duplicate = recorded?.answer(event.recipients, devices: devices ?? [], into: &results) ?? false
        if results.allSatisfy({ $0 != nil }) {
            dispatcher.series.events(.duplicate).add(1)
            return answer(EventAnswer(results: results.map { $0! }, duplicate: true).response(eventID: event.eventID))
        }
        let past = Past(recorded: recorded, devices: devices, duplicate: duplicate)
        let url = event.sender.avatarURL
        if let avatar = dispatcher.avatars.resolveWithoutWaiting(url) { return render(with: avatar, results, past) }
        Task {
            let avatar = await dispatcher.avatars.resolve(url, waitingAtMost: (deadline - ContinuousClock.now) / 2)
            render(with: avatar, results, past)
        }
    }

    /// Rendered: an event that cannot fit is refused, nothing sent; the
    /// recipients the renderer skips are answered.
    private func render(with avatar: AvatarState, _ answered: [RecipientResult?], _ past: Past) {
        var results = answered
        let rendered: RenderedEvent
        switch dispatcher.renderForDelivery(event, app: app, avatar: avatar, results: &results) {
        case let .failure(refusal):
            return answer(refusal.response)
        case let .success(success):
            rendered = success
        }
        // Usually no recipient is answered yet: every request is pending, as it is.
        let pending = results.contains(where: { $0 != nil }) ? rendered.requests.filter { results[$0.recipientIndex] == nil }
            : rendered.requests
        guard !pending.isEmpty else { return record(results.map { $0! }, past) }
        send(pending, results, past)
    }

    /// Sent, then retried: one attempt for every pending request; what may
    /// succeed later is retried in a task (it waits for its back-off).
    private func send(_ pending: [ProviderRequest], _ answered: [RecipientResult?], _ past: Past) {
        dispatcher.budget.recordAttempts(pending.count)
        dispatcher.sendOnce(pending, app: app, deadline: deadline) { outcomes in
            var final: [Int: RecipientResult] = [:]
            let retry = self.dispatcher.classify(pending, outcomes, app: self.app, into: &final)
            guard !retry.isEmpty else { return self.delivered(final, answered, past) }
            Task {
                await self.dispatcher.retrying(retry, app: self.app, deadline: self.deadline, final: &final)
                self.delivered(final, answered, past)
            }
        }
    }

    private func delivered(_ final: [Int: RecipientResult], _ answered: [RecipientResult?], _ past: Past) {
        dispatcher.countNotifications(final)
        record(Dispatcher.merged(answered, final), past)
    }

    /// Recorded: the results join the event's record for the dedup window,
    /// then the event is answered.
    private func record(_ results: [RecipientResult], _ past: Past) {
        let response = dispatcher.conclude(eventID: event.eventID, results: results, duplicate: past.duplicate)
            .response(eventID: event.eventID)
        dispatcher.dedup.record(key, RecordedEvent.merging(past.recorded, results, devices: past.devices),
                                expires: ContinuousClock.now + dispatcher.settings.dedupWindow) {
            self.answer(response)
        }
    }

    /// Answered: the turn passes to any copy waiting, and the caller has its answer.
    private func answer(_ response: HTTPResponse) {
        dispatcher.inFlight.release(key)
        completion(response)
    }
}
