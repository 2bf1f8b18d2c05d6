import GatewayHTTP
import PayloadBuilder

/// One decoded event's way through `/v1/notify`, each stage written once:
/// claimed (the event's claim in the dedup store, with what the window
/// recorded of it; a copy in flight makes it wait) → avatar → rendered →
/// sent → retried → recorded (and the claim released) → answered.
///
/// Continuation-passing: a stage calls the next as soon as its input is
/// ready, on the thread it runs on. Only a stage that truly waits goes on
/// later: a copy of the event in flight (the store tells it of the release,
/// or asks again), a dedup store across the network (its callback), an
/// avatar download, the providers (their connections' threads), a retry's
/// back-off (a task). With the in-process store, a cached avatar and cached
/// credentials, an event is rendered on the caller's thread (an event
/// loop's) and answered from the provider connections' threads, with no
/// task in between.
///
/// Immutable: what a stage learns is handed to the next as arguments, so a
/// run is safely passed between the threads its stages run on.
final class NotifyRun: Sendable {
    let dispatcher: Dispatcher
    let event: Event
    let app: AppProfile
    let key: String
    /// Whose the event's claim is while this run holds it.
    let owner: DedupClaimOwner
    /// When the last attempt must end.
    let deadline: ContinuousClock.Instant
    let completion: @Sendable (HTTPResponse) -> Void

    init(_ dispatcher: Dispatcher, event: Event, app: AppProfile, key: String, owner: DedupClaimOwner,
         deadline: ContinuousClock.Instant, completion: @escaping @Sendable (HTTPResponse) -> Void) {
        self.dispatcher = dispatcher
        self.event = event
        self.app = app
        self.key = key
        self.owner = owner
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
        /// The run holds the event's claim: it records the outcomes and
        /// releases it. False when the store could not be reached and the
        /// event is sent without dedup (nothing is recorded then).
        let claimed: Bool
    }

    /// Claimed: the event's claim and its record, read together.
    func start() {
        dispatcher.dedup.claim(key, by: owner, now: .now, holdFor: dispatcher.claimHold) { claim in self.claimed(claim, waited: false) }
    }

    /// A claim held by another dispatch of the event (here or on another
    /// replica) is waited for, up to the deadline: once released, its record
    /// answers the devices it settled. A store that cannot be reached is
    /// answered by the failure policy.
    private func claimed(_ claim: DedupClaim, waited: Bool) {
        switch claim {
        case let .claimed(recorded):
            resolveAvatar(after: recorded, claimed: true)
        case let .held(recorded):
            // A retry of a batch whose devices are recorded, while another batch of the event is sent, waits for nothing.
            if let recorded, answerIfAllRecorded(recorded) { return }
            guard !waited else {
                dispatcher.series.events(.inProgress).add(1)
                return completion(DedupRefusal.inProgress)
            }
            dispatcher.dedup.awaitClaim(key, by: owner, holdFor: dispatcher.claimHold, until: deadline) { claim in
                self.claimed(claim, waited: true)
            }
        case let .unavailable(failure):
            storeUnavailable(failure)
        }
    }

    /// The store could not claim: refused (503, nothing sent), or sent
    /// without dedup when the policy says so and there is time to.
    private func storeUnavailable(_ failure: DedupStoreFailure) {
        if dispatcher.settings.onStoreFailure == .sendWithoutDedup, ContinuousClock.now < deadline {
            dispatcher.storeFailures.failed(.claim, failure, consequence: "sent without dedup")
            dispatcher.storeFailures.bypassed.add(1)
            return resolveAvatar(after: nil, claimed: false)
        }
        dispatcher.storeFailures.failed(.claim, failure, consequence: "answered 503 store_unavailable, nothing sent")
        dispatcher.series.events(.storeUnavailable).add(1)
        completion(DedupRefusal.storeUnavailable)
    }

    /// Answers the event as a duplicate when `recorded` settles every
    /// recipient; returns whether it did.
    private func answerIfAllRecorded(_ recorded: RecordedEvent) -> Bool {
        var results = [RecipientResult?](repeating: nil, count: event.recipients.count)
        _ = recorded.answer(event.recipients, devices: event.recipients.map(RecordedDevice.init), into: &results)
        guard results.allSatisfy({ $0 != nil }) else { return false }
        dispatcher.series.events(.duplicate).add(1)
        completion(EventAnswer(results: results.map { $0! }, duplicate: true).response(eventID: event.eventID))
        return true
    }

    /// Avatar: the devices the record settled are answered from it; an
    /// event that is all answered is a duplicate, sent nowhere, and looks up
    /// no avatar. Otherwise the avatar, when it is known without waiting;
    /// else downloaded, in at most half the time left to send (a slow one
    /// is dropped, never the notification).
    private func resolveAvatar(after recorded: RecordedEvent?, claimed: Bool) {
        var results = [RecipientResult?](repeating: nil, count: event.recipients.count)
        let devices = recorded.map { _ in event.recipients.map(RecordedDevice.init) }
        let duplicate = recorded?.answer(event.recipients, devices: devices ?? [], into: &results) ?? false
        if results.allSatisfy({ $0 != nil }) {
            dispatcher.series.events(.duplicate).add(1)
            return answer(EventAnswer(results: results.map { $0! }, duplicate: true).response(eventID: event.eventID),
                          releasing: claimed)
        }
        let past = Past(recorded: recorded, devices: devices, duplicate: duplicate, claimed: claimed)
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
            return answer(refusal.response, releasing: past.claimed)
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

    /// Recorded: the results join the event's record for the dedup window
    /// and the claim is released, in one call; then the event is answered
    /// (a retry that comes after the answer finds the record). A record the
    /// store could not write leaves the answer as it is: the devices were
    /// sent. Sent without dedup: nothing is recorded.
    private func record(_ results: [RecipientResult], _ past: Past) {
        let response = dispatcher.conclude(eventID: event.eventID, results: results, duplicate: past.duplicate)
            .response(eventID: event.eventID)
        guard past.claimed else { return completion(response) }
        dispatcher.dedup.record(key, RecordedEvent.merging(past.recorded, results, devices: past.devices), now: .now,
                                keepFor: dispatcher.settings.dedupWindow, releasing: owner) { failure in
            if let failure {
                self.dispatcher.storeFailures.failed(.record, failure, consequence: "answered; the claim lapses after its hold, "
                    + "then a retry sends what is not recorded")
            }
            self.completion(response)
        }
    }

    /// Answered without a record: the claim, when held, is released (a copy
    /// waiting then claims and reads the record), and the caller has its answer.
    private func answer(_ response: HTTPResponse, releasing claimed: Bool) {
        if claimed {
            let failures = dispatcher.storeFailures
            dispatcher.dedup.release(key, by: owner) { failure in
                if let failure { failures.failed(.release, failure, consequence: "the claim lapses after its hold") }
            }
        }
        completion(response)
    }
}
