import APNsHTTP2
import Foundation
public import PayloadBuilder
import Synchronization
import PushGWSync

/// The gateway's heart: one event in, per-device outcomes out.
///
/// validate → dedup → avatar → render per device → send (per provider,
/// batched; retries with back-off and jitter, Retry-After, a deadline and a
/// shared budget) → outcomes, the tokens to delete, the 200/502 rule. A
/// retried event (same app and `event_id`) within the dedup window sends
/// only what did not settle the first time, and says `duplicate: true`.
public final class Dispatcher: Sendable {
    /// Tunables of dispatching.
    public struct Settings: Sendable {
        public var dedupWindow: Duration = .seconds(600)
        /// From the event's arrival; retries stop when it would be passed.
        public var requestDeadline: Duration = .seconds(30)
        public var retry = RetryPolicy()

        public init() {}
    }

    public let config: RenderConfig
    let settings: Settings
    /// Per app name, per platform.
    let senders: [String: [Platform: any NotificationSender]]
    let avatars: any AvatarResolving
    let dedup: any DedupStore
    let metrics: GatewayMetrics
    let budget: RetryBudget
    let logger: Logger
    /// Epoch seconds, for `apns-expiration`.
    let wallClock: @Sendable () -> Int64
    /// Events being dispatched, with the callers waiting for the same event.
    private let inFlight = Locked<[String: [CheckedContinuation<EventAnswer?, Never>]]>([:])
    /// The series updated for every event, found once.
    private let series: DispatcherSeries

    public init(config: RenderConfig, senders: [String: [Platform: any NotificationSender]], avatars: any AvatarResolving,
                dedup: any DedupStore = InMemoryDedupStore(), metrics: GatewayMetrics, settings: Settings = Settings(),
                budget: RetryBudget = RetryBudget(), logger: Logger = Logger(),
                wallClock: @escaping @Sendable () -> Int64 = Dispatcher.systemWallClock) {
        self.config = config
        self.senders = senders
        self.avatars = avatars
        self.dedup = dedup
        self.metrics = metrics
        self.settings = settings
        self.budget = budget
        self.logger = logger
        self.wallClock = wallClock
        series = DispatcherSeries(metrics.registry, providers: senders.values.flatMap { $0.values.map(\.provider) })
    }

    /// Epoch seconds from the system clock.
    public static let systemWallClock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

    // MARK: /v1/render

    /// The provider requests `/v1/notify` would send for `body`, without sending.
    public func render(body: [UInt8]) async -> HTTPResponse {
        do throws(EventError) {
            let (event, app) = try EventDecoder(config: config).decode(body)
            return try renderAnswer(event, app: app, avatar: await avatars.resolve(event.sender.avatarURL))
        } catch {
            return HTTPResponse(status: error.code.httpStatus, body: error.jsonBody)
        }
    }

    /// `render(body:)` when the avatar needs no network; nil otherwise.
    public func renderWithoutWaiting(body: [UInt8]) -> HTTPResponse? {
        do throws(EventError) {
            let (event, app) = try EventDecoder(config: config).decode(body)
            guard let avatar = avatars.resolveWithoutWaiting(event.sender.avatarURL) else { return nil }
            return try renderAnswer(event, app: app, avatar: avatar)
        } catch {
            return HTTPResponse(status: error.code.httpStatus, body: error.jsonBody)
        }
    }

    /// The `/v1/render` answer once the avatar is decided.
    private func renderAnswer(_ event: Event, app: AppProfile, avatar: AvatarState) throws(EventError) -> HTTPResponse {
        let rendered = try EventRenderer(config: config).render(event, app: app, avatar: avatar, now: wallClock())
        return HTTPResponse(status: 200, body: RenderReport.json(rendered, pretty: false))
    }

    // MARK: /v1/notify

    public func notify(body: [UInt8]) async -> HTTPResponse {
        let arrival = ContinuousClock.now
        switch decodeForNotify(body) {
        case let .failure(refusal):
            return refusal.response
        case let .success((event, app, key)):
            return await notify(event, app: app, key: key, arrival: arrival)
        }
    }

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
        guard case .notRecorded = dedup.lookupWithoutWaiting(key, now: arrival),
              let avatar = avatars.resolveWithoutWaiting(event.sender.avatarURL), becomeOwner(of: key) else {
            Task { completion(await self.notify(event, app: app, key: key, arrival: arrival)) }
            return
        }
        // This call now owns `key`: every way out goes through `finishOwned`.
        var results = [RecipientResult?](repeating: nil, count: event.recipients.count)
        let rendered: RenderedEvent
        switch renderForDelivery(event, app: app, avatar: avatar, results: &results) {
        case let .failure(answered):
            return finishOwned(event, key: key, results: answered.results, completion: completion)
        case let .success(success):
            rendered = success
        }
        let pending = rendered.requests.filter { results[$0.recipientIndex] == nil }
        guard !pending.isEmpty else { return finishOwned(event, key: key, results: results.map { $0! }, completion: completion) }
        budget.recordAttempts(pending.count)
        let answered = results
        sendOnce(pending, app: app) { outcomes in
            var final: [Int: RecipientResult] = [:]
            let retry = self.classify(pending, outcomes, into: &final)
            if retry.isEmpty {
                self.countNotifications(final)
                var results = answered
                for (index, result) in final { results[index] = result }
                return self.finishOwned(event, key: key, results: results.map { $0! }, completion: completion)
            }
            Task {
                await self.retrying(retry, app: app, deadline: arrival + self.settings.requestDeadline, final: &final)
                self.countNotifications(final)
                var results = answered
                for (index, result) in final { results[index] = result }
                let answer = await self.finish(event, key: key, results: results.map { $0! }, duplicate: false)
                self.release(key, answer: answer)
                completion(answer.response(eventID: event.eventID))
            }
        }
    }

    private func decodeForNotify(_ body: [UInt8]) -> Result<(Event, AppProfile, String), HTTPResponseRefusal> {
        do throws(EventError) {
            let (event, app) = try EventDecoder(config: config).decode(body)
            return .success((event, app, "\(app.name)\u{0}\(event.eventID)"))
        } catch {
            series.events(.invalid).add(1)
            return .failure(HTTPResponseRefusal(response: HTTPResponse(status: error.code.httpStatus, body: error.jsonBody)))
        }
    }

    /// The task path of notify, once the event is decoded.
    private func notify(_ event: Event, app: AppProfile, key: String, arrival: ContinuousClock.Instant) async -> HTTPResponse {
        let answer = await coalesced(key: key) {
            await dispatch(event, app: app, key: key, deadline: arrival + settings.requestDeadline)
        }
        return answer.response(eventID: event.eventID)
    }

    /// Concurrent requests for one event share one dispatch: the first runs
    /// it, the others wait for its answer (and report `duplicate: true`).
    private func coalesced(key: String, _ work: () async -> EventAnswer) async -> EventAnswer {
        let shared = await withCheckedContinuation { (continuation: CheckedContinuation<EventAnswer?, Never>) in
            let isOwner = inFlight.withLock { waiting -> Bool in
                if waiting[key] != nil {
                    waiting[key]!.append(continuation)
                    return false
                }
                waiting[key] = []
                return true
            }
            if isOwner { continuation.resume(returning: nil) }
        }
        if var answer = shared {
            answer.duplicate = true
            return answer
        }
        let answer = await work()
        release(key, answer: answer)
        return answer
    }

    /// Takes `key` for this dispatch when no other dispatch of it is in flight.
    private func becomeOwner(of key: String) -> Bool {
        inFlight.withLock { waiting in
            guard waiting[key] == nil else { return false }
            waiting[key] = []
            return true
        }
    }

    /// Ends the ownership of `key`: the copies that waited get `answer`.
    private func release(_ key: String, answer: EventAnswer) {
        let waiters = inFlight.withLock { $0.removeValue(forKey: key) ?? [] }
        for waiter in waiters { waiter.resume(returning: answer) }
    }

    private func dispatch(_ event: Event, app: AppProfile, key: String, deadline: ContinuousClock.Instant) async -> EventAnswer {
        let recorded = await dedup.lookup(key, now: ContinuousClock.now)
        var results = [RecipientResult?](repeating: nil, count: event.recipients.count)
        if let recorded, recorded.results.count == results.count {
            // A recorded result counts only for the same device at the same place
            // (a caller may reuse an event_id with other recipients).
            for (index, result) in recorded.results.enumerated()
            where result.isSettled && result.isFor(event.recipients[index]) {
                results[index] = result.result(token: event.recipients[index].token)
            }
        }
        let duplicate = recorded != nil
        if results.allSatisfy({ $0 != nil }) {
            series.events(.duplicate).add(1)
            return EventAnswer(results: results.map { $0! }, duplicate: true)
        }

        let avatar = await avatars.resolve(event.sender.avatarURL)
        let rendered: RenderedEvent
        switch renderForDelivery(event, app: app, avatar: avatar, results: &results) {
        case let .failure(answered):
            return await finish(event, key: key, results: answered.results, duplicate: duplicate)
        case let .success(success):
            rendered = success
        }
        let pending = rendered.requests.filter { results[$0.recipientIndex] == nil }
        let delivered = await deliver(pending, app: app, deadline: deadline)
        for (index, result) in delivered { results[index] = result }
        return await finish(event, key: key, results: results.map { $0! }, duplicate: duplicate)
    }

    /// Renders the event; fills `results` for the recipients it skips. An
    /// event that cannot be rendered (it cannot fit the payload limit) fails
    /// every recipient not yet answered: those results are the failure.
    private func renderForDelivery(_ event: Event, app: AppProfile, avatar: AvatarState,
                                   results: inout [RecipientResult?]) -> Result<RenderedEvent, RenderRefusal> {
        let rendered: RenderedEvent
        do throws(EventError) {
            rendered = try EventRenderer(config: config).render(event, app: app, avatar: avatar, now: wallClock())
        } catch {
            for index in results.indices where results[index] == nil {
                let recipient = event.recipients[index]
                results[index] = RecipientResult(platform: recipient.platform, token: recipient.token, status: .failed,
                                                 reason: error.message, retryable: false)
            }
            return .failure(RenderRefusal(results: results.map { $0! }))
        }
        for skip in rendered.skipped where results[skip.recipientIndex] == nil {
            results[skip.recipientIndex] = RecipientResult(platform: skip.platform, token: skip.token, status: .skipped,
                                                           reason: skip.reason)
        }
        return .success(rendered)
    }

    /// Metrics and logs of the event's final results; the answer.
    private func conclude(_ event: Event, results: [RecipientResult], duplicate: Bool) -> EventAnswer {
        let answer = EventAnswer(results: results, duplicate: duplicate)
        let outcome: DispatcherSeries.Outcome = answer.allSettled ? (duplicate ? .duplicate : .delivered) : .failed
        series.events(outcome).add(1)
        logger.log(answer.allSettled ? .info : .warning, "event", {
            var counts: [RecipientResult.Status: Int] = [:]
            for result in results { counts[result.status, default: 0] += 1 }
            return [
                ("event_id", event.eventID), ("outcome", outcome.rawValue), ("recipients", String(results.count)),
                ("sent", String(counts[.sent] ?? 0)), ("invalid_token", String(counts[.invalidToken] ?? 0)),
                ("failed", String(counts[.failed] ?? 0)), ("skipped", String(counts[.skipped] ?? 0)),
            ]
        }())
        for result in results where result.status == .failed {
            logger.warning("delivery failed", [
                ("event_id", event.eventID), ("platform", result.platform.rawValue), ("token", Logger.redact(token: result.token)),
                ("reason", result.reason ?? "unknown"), ("retryable", String(result.retryable ?? false)),
            ])
        }
        return answer
    }

    private func finish(_ event: Event, key: String, results: [RecipientResult], duplicate: Bool) async -> EventAnswer {
        let answer = conclude(event, results: results, duplicate: duplicate)
        await dedup.record(key, RecordedEvent(results: results.map(RecordedResult.init)), expires: ContinuousClock.now + settings.dedupWindow)
        return answer
    }

    /// `finish` for a dispatch that owns `key` without a task: records the
    /// event (in a task only if the store must wait), releases the key, answers.
    private func finishOwned(_ event: Event, key: String, results: [RecipientResult],
                             completion: @escaping @Sendable (HTTPResponse) -> Void) {
        let answer = conclude(event, results: results, duplicate: false)
        let recorded = RecordedEvent(results: results.map(RecordedResult.init))
        let expires = ContinuousClock.now + settings.dedupWindow
        guard dedup.recordWithoutWaiting(key, recorded, expires: expires) else {
            Task {
                await self.dedup.record(key, recorded, expires: expires)
                self.release(key, answer: answer)
                completion(answer.response(eventID: event.eventID))
            }
            return
        }
        release(key, answer: answer)
        completion(answer.response(eventID: event.eventID))
    }

    // MARK: sending with retries

    /// Sends `requests`, retrying what may succeed later, and returns each
    /// recipient's final result by recipient index.
    private func deliver(_ requests: [ProviderRequest], app: AppProfile,
                         deadline: ContinuousClock.Instant) async -> [Int: RecipientResult] {
        var final: [Int: RecipientResult] = [:]
        guard !requests.isEmpty else { return final }
        budget.recordAttempts(requests.count)
        let retry = classify(requests, await sendOnce(requests, app: app), into: &final)
        await retrying(retry, app: app, deadline: deadline, final: &final)
        countNotifications(final)
        return final
    }

    /// A request to try again, the result it has if it is not, and the
    /// provider's Retry-After.
    private typealias Retry = (request: ProviderRequest, result: RecipientResult, after: Duration?)

    /// Files each outcome's final result in `final`; returns what may be retried.
    private func classify(_ requests: [ProviderRequest], _ outcomes: [DeliveryResult],
                          into final: inout [Int: RecipientResult]) -> [Retry] {
        var retry: [Retry] = []
        for (request, outcome) in zip(requests, outcomes) {
            let provider = request.platform.rawValue
            switch outcome {
            case let .accepted(providerID):
                final[request.recipientIndex] = RecipientResult(platform: request.platform, token: request.token,
                                                                 status: .sent, providerID: providerID)
            case let .rejected(_, reason, .dropToken):
                metrics.registry.increment(GatewayMetrics.rejectedTokens, [provider])
                final[request.recipientIndex] = RecipientResult(platform: request.platform, token: request.token,
                                                                 status: .invalidToken, reason: reason)
            case let .rejected(_, reason, .final):
                final[request.recipientIndex] = RecipientResult(platform: request.platform, token: request.token,
                                                                 status: .failed, reason: reason, retryable: false)
            case let .rejected(_, reason, .retry(after)):
                retry.append((request, RecipientResult(platform: request.platform, token: request.token, status: .failed,
                                                       reason: reason, retryable: true), after))
            case let .failed(error):
                let result = RecipientResult(platform: request.platform, token: request.token, status: .failed,
                                             reason: error.kind.name, retryable: error.isRetryable)
                if error.isRetryable {
                    retry.append((request, result, nil))
                } else {
                    final[request.recipientIndex] = result
                }
            }
        }
        return retry
    }

    /// Retries with back-off and jitter, within the deadline, the attempt
    /// limit and the shared budget; what is not retried keeps its last result.
    private func retrying(_ retry: [Retry], app: AppProfile, deadline: ContinuousClock.Instant,
                          final: inout [Int: RecipientResult]) async {
        var retry = retry
        var attempt = 1
        while !retry.isEmpty {
            attempt += 1
            let delay = retry.map { settings.retry.delay(beforeAttempt: attempt, retryAfter: $0.after, jitter: Double.random(in: 0...1)) }
                .max() ?? .zero
            let granted = attempt <= settings.retry.maximumAttempts && ContinuousClock.now + delay < deadline
                ? budget.withdraw(retry.count) : 0
            for (request, result, _) in retry.dropFirst(granted) {
                final[request.recipientIndex] = result
            }
            let pending = retry.prefix(granted).map(\.request)
            if pending.isEmpty { break }
            for request in pending { metrics.registry.increment(GatewayMetrics.retries, [request.platform.rawValue]) }
            try? await Task.sleep(for: delay)
            retry = classify(pending, await sendOnce(pending, app: app), into: &final)
        }
    }

    private func countNotifications(_ final: [Int: RecipientResult]) {
        for result in final.values {
            series.notifications(result.platform, result.status).add(1)
        }
    }

    /// One attempt for every request, each provider's batch in parallel.
    private func sendOnce(_ requests: [ProviderRequest], app: AppProfile) async -> [DeliveryResult] {
        await withCheckedContinuation { continuation in
            sendOnce(requests, app: app) { continuation.resume(returning: $0) }
        }
    }

    /// `sendOnce` with a completion: every provider's batch is handed to its
    /// sender at once; `completion` runs when the last one has answered.
    private func sendOnce(_ requests: [ProviderRequest], app: AppProfile,
                          completion: @escaping @Sendable ([DeliveryResult]) -> Void) {
        var byPlatform: [Platform: [Int]] = [:]
        for (position, request) in requests.enumerated() { byPlatform[request.platform, default: []].append(position) }
        let gathered = Locked(GatheredDeliveries(count: requests.count, batches: byPlatform.count))
        for (platform, positions) in byPlatform {
            guard let sender = senders[app.name]?[platform] else {
                let refusal = DeliveryResult.rejected(status: 0, reason: "no \(platform.rawValue) sender configured", disposition: .final)
                if let all = gathered.withLock({ $0.add(positions, Array(repeating: refusal, count: positions.count)) }) {
                    completion(all)
                }
                continue
            }
            let batch = positions.map { requests[$0] }
            let started = ContinuousClock.now
            let (inFlight, duration) = series.provider(sender.provider)
            inFlight.add(Double(batch.count))
            sender.send(batch) { results in
                inFlight.add(-Double(batch.count))
                let elapsed = ContinuousClock.now - started
                duration.observe(seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                if let all = gathered.withLock({ $0.add(positions, results) }) { completion(all) }
            }
        }
    }
}

/// A notify answered at once, before anything is sent: its body was refused.
private struct HTTPResponseRefusal: Error {
    let response: HTTPResponse
}

/// Every recipient's result when an event cannot be rendered.
private struct RenderRefusal: Error {
    let results: [RecipientResult]
}

/// The providers' results of one attempt, until the last batch is in.
private struct GatheredDeliveries {
    var results: [DeliveryResult?]
    var batches: Int

    init(count: Int, batches: Int) {
        results = Array(repeating: nil, count: count)
        self.batches = batches
    }

    /// Files one batch's results; returns them all once every batch is in.
    mutating func add(_ positions: [Int], _ batch: [DeliveryResult]) -> [DeliveryResult]? {
        for (position, result) in zip(positions, batch) { results[position] = result }
        batches -= 1
        guard batches == 0 else { return nil }
        return results.map { $0 ?? .failed(TransportError(.shutdown, "no result")) }
    }
}

/// The metric series the dispatcher updates for every event, looked up in
/// the registry once rather than per update.
private struct DispatcherSeries: Sendable {
    enum Outcome: String, CaseIterable {
        case invalid, duplicate, delivered, failed
    }

    private let registry: MetricsRegistry
    private let outcomes: [Outcome: MetricSeries]
    private let results: [Platform: [RecipientResult.Status: MetricSeries]]
    private let providers: [String: (inFlight: MetricSeries, duration: MetricSeries)]

    init(_ registry: MetricsRegistry, providers names: [String]) {
        self.registry = registry
        outcomes = Dictionary(uniqueKeysWithValues: Outcome.allCases.map { ($0, registry.series(GatewayMetrics.events, [$0.rawValue])) })
        results = Dictionary(uniqueKeysWithValues: Platform.allCases.map { platform in
            (platform, Dictionary(uniqueKeysWithValues: RecipientResult.Status.allCases.map { status in
                (status, registry.series(GatewayMetrics.notifications, [platform.rawValue, status.rawValue]))
            }))
        })
        var providers: [String: (MetricSeries, MetricSeries)] = [:]
        for name in names {
            providers[name] = (registry.series(GatewayMetrics.providerInFlight, [name]),
                               registry.series(GatewayMetrics.providerDuration, [name]))
        }
        self.providers = providers
    }

    func events(_ outcome: Outcome) -> MetricSeries { outcomes[outcome]! }

    func notifications(_ platform: Platform, _ status: RecipientResult.Status) -> MetricSeries {
        results[platform]?[status] ?? registry.series(GatewayMetrics.notifications, [platform.rawValue, status.rawValue])
    }

    func provider(_ name: String) -> (inFlight: MetricSeries, duration: MetricSeries) {
        providers[name] ?? (registry.series(GatewayMetrics.providerInFlight, [name]), registry.series(GatewayMetrics.providerDuration, [name]))
    }
}
