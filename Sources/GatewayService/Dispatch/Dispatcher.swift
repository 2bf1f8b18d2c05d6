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
        let event: Event
        let app: AppProfile
        do throws(EventError) {
            (event, app) = try EventDecoder(config: config).decode(body)
        } catch {
            metrics.registry.increment(GatewayMetrics.events, ["invalid"])
            return HTTPResponse(status: error.code.httpStatus, body: error.jsonBody)
        }
        let key = "\(app.name)\u{0}\(event.eventID)"
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
        let waiters = inFlight.withLock { $0.removeValue(forKey: key) ?? [] }
        for waiter in waiters { waiter.resume(returning: answer) }
        return answer
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
            metrics.registry.increment(GatewayMetrics.events, ["duplicate"])
            return EventAnswer(results: results.map { $0! }, duplicate: true)
        }

        let avatar = await avatars.resolve(event.sender.avatarURL)
        let rendered: RenderedEvent
        do throws(EventError) {
            rendered = try EventRenderer(config: config).render(event, app: app, avatar: avatar, now: wallClock())
        } catch {
            // The event decoded but cannot be rendered (it cannot fit the payload limit).
            for index in results.indices where results[index] == nil {
                let recipient = event.recipients[index]
                results[index] = RecipientResult(platform: recipient.platform, token: recipient.token, status: .failed,
                                                 reason: error.message, retryable: false)
            }
            return await finish(event, key: key, results: results.map { $0! }, duplicate: duplicate)
        }
        for skip in rendered.skipped where results[skip.recipientIndex] == nil {
            results[skip.recipientIndex] = RecipientResult(platform: skip.platform, token: skip.token, status: .skipped,
                                                           reason: skip.reason)
        }
        let pending = rendered.requests.filter { results[$0.recipientIndex] == nil }
        let delivered = await deliver(pending, app: app, deadline: deadline)
        for (index, result) in delivered { results[index] = result }
        return await finish(event, key: key, results: results.map { $0! }, duplicate: duplicate)
    }

    private func finish(_ event: Event, key: String, results: [RecipientResult], duplicate: Bool) async -> EventAnswer {
        let answer = EventAnswer(results: results, duplicate: duplicate)
        let outcome = answer.allSettled ? (duplicate ? "duplicate" : "delivered") : "failed"
        metrics.registry.increment(GatewayMetrics.events, [outcome])
        var counts: [RecipientResult.Status: Int] = [:]
        for result in results { counts[result.status, default: 0] += 1 }
        logger.log(answer.allSettled ? .info : .warning, "event", [
            ("event_id", event.eventID), ("outcome", outcome), ("recipients", String(results.count)),
            ("sent", String(counts[.sent] ?? 0)), ("invalid_token", String(counts[.invalidToken] ?? 0)),
            ("failed", String(counts[.failed] ?? 0)), ("skipped", String(counts[.skipped] ?? 0)),
        ])
        for result in results where result.status == .failed {
            logger.warning("delivery failed", [
                ("event_id", event.eventID), ("platform", result.platform.rawValue), ("token", Logger.redact(token: result.token)),
                ("reason", result.reason ?? "unknown"), ("retryable", String(result.retryable ?? false)),
            ])
        }
        await dedup.record(key, RecordedEvent(results: results.map(RecordedResult.init)), expires: ContinuousClock.now + settings.dedupWindow)
        return answer
    }

    // MARK: sending with retries

    /// Sends `requests`, retrying what may succeed later, and returns each
    /// recipient's final result by recipient index.
    private func deliver(_ requests: [ProviderRequest], app: AppProfile,
                         deadline: ContinuousClock.Instant) async -> [Int: RecipientResult] {
        var final: [Int: RecipientResult] = [:]
        var pending = requests
        var attempt = 1
        budget.recordAttempts(requests.count)
        while !pending.isEmpty {
            let outcomes = await sendOnce(pending, app: app)
            var retry: [(ProviderRequest, RecipientResult, Duration?)] = []
            for (request, outcome) in zip(pending, outcomes) {
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
            guard !retry.isEmpty else { break }
            attempt += 1
            let delay = retry.map { settings.retry.delay(beforeAttempt: attempt, retryAfter: $0.2, jitter: Double.random(in: 0...1)) }
                .max() ?? .zero
            let granted = attempt <= settings.retry.maximumAttempts && ContinuousClock.now + delay < deadline
                ? budget.withdraw(retry.count) : 0
            for (request, result, _) in retry.dropFirst(granted) {
                final[request.recipientIndex] = result
            }
            pending = retry.prefix(granted).map(\.0)
            if pending.isEmpty { break }
            for request in pending { metrics.registry.increment(GatewayMetrics.retries, [request.platform.rawValue]) }
            try? await Task.sleep(for: delay)
        }
        for result in final.values {
            metrics.registry.increment(GatewayMetrics.notifications, [result.platform.rawValue, result.status.rawValue])
        }
        return final
    }

    /// One attempt for every request, each provider's batch in parallel.
    private func sendOnce(_ requests: [ProviderRequest], app: AppProfile) async -> [DeliveryResult] {
        var byPlatform: [Platform: [Int]] = [:]
        for (position, request) in requests.enumerated() { byPlatform[request.platform, default: []].append(position) }
        if byPlatform.count == 1, let (platform, _) = byPlatform.first, let sender = senders[app.name]?[platform] {
            return await timedSend(requests, with: sender)
        }
        var outcomes = [DeliveryResult?](repeating: nil, count: requests.count)
        await withTaskGroup(of: (Platform, [DeliveryResult]).self) { group in
            for (platform, positions) in byPlatform {
                guard let sender = senders[app.name]?[platform] else {
                    for position in positions {
                        outcomes[position] = .rejected(status: 0, reason: "no \(platform.rawValue) sender configured", disposition: .final)
                    }
                    continue
                }
                let batch = positions.map { requests[$0] }
                group.addTask { (platform, await self.timedSend(batch, with: sender)) }
            }
            for await (platform, results) in group {
                for (position, result) in zip(byPlatform[platform]!, results) { outcomes[position] = result }
            }
        }
        return outcomes.map { $0 ?? .failed(TransportError(.shutdown, "no result")) }
    }

    /// One provider batch, with the in-flight gauge and the latency histogram.
    private func timedSend(_ batch: [ProviderRequest], with sender: any NotificationSender) async -> [DeliveryResult] {
        let started = ContinuousClock.now
        metrics.registry.increment(GatewayMetrics.providerInFlight, [sender.provider], by: Double(batch.count))
        let results = await sender.send(batch)
        metrics.registry.increment(GatewayMetrics.providerInFlight, [sender.provider], by: -Double(batch.count))
        let elapsed = ContinuousClock.now - started
        metrics.registry.observe(GatewayMetrics.providerDuration, [sender.provider],
                                 seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        return results
    }
}
