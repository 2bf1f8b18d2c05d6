public import GatewayHTTP
import Foundation
public import PayloadBuilder

/// The gateway's heart: one event in, per-device outcomes out.
///
/// decode → claim (the event's turn, its dedup record) → avatar → render
/// per device → send (per provider, batched) → retry (back-off and jitter,
/// Retry-After, a deadline and a shared budget) → record → answer (the
/// outcomes, the tokens to delete, the 200/502 rule), driven by one
/// `NotifyRun` per event behind both entry points. Within
/// the dedup window an event (app and `event_id`) is sent at most once per
/// device: a retry, in any order or split into other batches, sends only the
/// devices that have not settled for that event yet, and says
/// `duplicate: true` when it answered any device from the record.
public final class Dispatcher: Sendable {
    /// Tunables of dispatching.
    public struct Settings: Sendable {
        public var dedupWindow: Duration = .seconds(600)
        /// From the event's arrival; retries stop when it would be passed,
        /// and the answer is given by then.
        public var requestDeadline: Duration = .seconds(30)
        public var retry = RetryPolicy()
        /// What a notify does when the dedup store cannot answer its claim.
        public var onStoreFailure: DedupFailurePolicy = .refuse
        /// How long a claim outlives the request deadline: a claim left by
        /// a replica that died lapses `requestDeadline + claimMargin` after
        /// it was taken (a live dispatch has recorded and released it by then).
        public var claimMargin: Duration = .seconds(5)

        public init() {}

        /// How long a claim is held at most (see `claimMargin`).
        public var claimHold: Duration { requestDeadline + claimMargin }

        /// How long after arrival the last attempt must end: the request
        /// deadline less a margin (a tenth of it, at most 250 ms) to conclude
        /// and answer, so a caller whose own timeout is the documented
        /// deadline gets the per-device results.
        var sendingTime: Duration {
            requestDeadline - min(requestDeadline / 10, .milliseconds(250))
        }
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
    /// An owner for each dispatch's claim.
    let claimOwners = DedupClaimOwner.Source()
    /// `settings.claimHold`, worked out once.
    let claimHold: Duration
    /// What the dedup store could not do: counted, and logged now and then.
    let storeFailures: DedupStoreFailureLog
    /// The series updated for every event, found once.
    let series: DispatcherSeries
    /// The apps' providers known bad, for readiness.
    let health = ProviderHealth()
    /// From an event's arrival to the end of its last attempt:
    /// `settings.sendingTime`, worked out once rather than per event.
    let sendingTime: Duration

    /// "app provider: reason" for each provider whose last word was that our
    /// configuration is wrong; empty when none (`/readyz`).
    public var providersKnownBad: [String] { health.knownBad }

    /// Why the dedup store keeps the gateway from taking notifications
    /// (`/readyz`): it cannot be reached, and notifications are refused
    /// meanwhile (`DedupFailurePolicy.refuse`). Empty otherwise.
    public var dedupStoreNotReady: [String] {
        guard settings.onStoreFailure == .refuse, let failure = dedup.currentFailure else { return [] }
        return ["dedup store unavailable (\(failure))"]
    }

    /// The dedup store cannot be reached but notifications are sent
    /// without dedup (`DedupFailurePolicy.sendWithoutDedup`): ready, degraded.
    public var dedupStoreDegraded: [String] {
        guard settings.onStoreFailure == .sendWithoutDedup, let failure = dedup.currentFailure else { return [] }
        return ["dedup store unavailable (\(failure)): sending without dedup"]
    }

    /// Memory for `/v1/render` answers: the server this dispatcher answers
    /// through hands each sent answer's back here (`HTTPServer`'s
    /// `answerStorage`), and the next render is written into it.
    public let answerStorage = AnswerStorage()

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
        sendingTime = settings.sendingTime
        claimHold = settings.claimHold
        storeFailures = DedupStoreFailureLog(metrics.registry, logger: logger)
        series = DispatcherSeries(metrics.registry, providers: senders.values.flatMap { $0.values.map(\.provider) })
    }

    /// Epoch seconds from the system clock.
    public static let systemWallClock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

    // MARK: /v1/render

    /// The provider requests `/v1/notify` would send for `body`, without sending.
    public func render(body: [UInt8]) async -> HTTPResponse {
        do throws(EventError) {
            let (event, appIndex) = try EventDecoder(config: config).decodeIndexed(body)
            return try renderAnswer(event, appIndex: appIndex, avatar: await avatars.resolve(event.sender.avatarURL))
        } catch {
            return HTTPResponse(status: error.code.httpStatus, body: error.jsonBody)
        }
    }

    /// `render(body:)` when the avatar needs no network; nil otherwise. The
    /// answer is written into memory from `answerStorage` (a sent answer's,
    /// when the server hands them back) when it has some.
    public func renderWithoutWaiting(body: [UInt8]) -> HTTPResponse? {
        do throws(EventError) {
            let (event, appIndex) = try EventDecoder(config: config).decodeIndexed(body)
            guard let avatar = avatars.resolveWithoutWaiting(event.sender.avatarURL) else { return nil }
            return try renderAnswer(event, appIndex: appIndex, avatar: avatar, reusing: answerStorage.take())
        } catch {
            return HTTPResponse(status: error.code.httpStatus, body: error.jsonBody)
        }
    }

    /// The `/v1/render` answer once the avatar is decided, written into
    /// `storage`'s memory when it fits (see `EventRenderer.renderReport`).
    private func renderAnswer(_ event: consuming Event, appIndex: Int, avatar: consuming AvatarState,
                              reusing storage: consuming [UInt8] = []) throws(EventError) -> HTTPResponse {
        // Written while rendering: no request values made only to be written out.
        let report = try EventRenderer(config: config).renderReport(event, appIndex: appIndex, avatar: avatar, now: wallClock(),
                                                                    reusing: storage)
        return HTTPResponse(status: 200, body: report)
    }

    // MARK: /v1/notify

    /// The `/v1/notify` answer for `body`, given to `completion` once, from
    /// whatever thread the last stage ran on: at once for a body that is
    /// refused, else once the event is recorded (see `NotifyRun`).
    public func notify(body: [UInt8], completion: @escaping @Sendable (HTTPResponse) -> Void) {
        let arrival = ContinuousClock.now
        do throws(EventError) {
            let (event, app) = try EventDecoder(config: config).decode(body)
            NotifyRun(self, event: event, app: app, key: DedupKey.of(event, app: app.name), owner: claimOwners.next(),
                      deadline: arrival + sendingTime, completion: completion).start()
        } catch {
            series.events(.invalid).add(1)
            completion(HTTPResponse(status: error.code.httpStatus, body: error.jsonBody))
        }
    }

    /// `notify(body:completion:)`, awaited.
    public func notify(body: [UInt8]) async -> HTTPResponse {
        await withCheckedContinuation { continuation in notify(body: body) { continuation.resume(returning: $0) } }
    }

    /// The results given before sending, completed by the delivered ones.
    static func merged(_ answered: [RecipientResult?], _ delivered: [Int: RecipientResult]) -> [RecipientResult] {
        // Each result copied once (a mutable copy of `answered` then its map copied each twice).
        answered.indices.map { index in delivered[index] ?? answered[index]! }
    }

    /// Renders the event; fills `results` for the recipients it skips. An
    /// event that cannot be rendered (it cannot fit the payload limit, even
    /// with its text shortened) is refused as `/v1/render` refuses it: 400
    /// `invalid_event` naming the field to shorten, and nothing is sent.
    func renderForDelivery(_ event: Event, app: AppProfile, avatar: AvatarState,
                           results: inout [RecipientResult?]) -> Result<RenderedEvent, HTTPResponseRefusal> {
        let rendered: RenderedEvent
        do throws(EventError) {
            rendered = try EventRenderer(config: config).render(event, app: app, avatar: avatar, now: wallClock())
        } catch {
            series.events(.invalid).add(1)
            return .failure(HTTPResponseRefusal(response: HTTPResponse(status: error.code.httpStatus, body: error.jsonBody)))
        }
        if rendered.avatar != avatar { series.avatarsDroppedToFit.add(1) }
        for skip in rendered.skipped where results[skip.recipientIndex] == nil {
            results[skip.recipientIndex] = RecipientResult(platform: skip.platform, token: skip.token, status: .skipped,
                                                           reason: skip.reason)
            series.notifications(skip.platform, .skipped).add(1)
        }
        return .success(rendered)
    }

    /// Metrics and logs of the final results of the event `eventID`; the answer.
    func conclude(eventID: String, results: [RecipientResult], duplicate: Bool) -> EventAnswer {
        let answer = EventAnswer(results: results, duplicate: duplicate)
        let outcome: DispatcherSeries.Outcome = answer.allSettled ? (duplicate ? .duplicate : .delivered) : .failed
        series.events(outcome).add(1)
        logger.log(answer.allSettled ? .info : .warning, "event", {
            var counts: [RecipientResult.Status: Int] = [:]
            for result in results { counts[result.status, default: 0] += 1 }
            return [
                ("event_id", eventID), ("outcome", outcome.rawValue), ("recipients", String(results.count)),
                ("sent", String(counts[.sent] ?? 0)), ("invalid_token", String(counts[.invalidToken] ?? 0)),
                ("failed", String(counts[.failed] ?? 0)), ("skipped", String(counts[.skipped] ?? 0)),
            ]
        }())
        // By position: only a failed result is copied (the loop copied every one).
        for index in results.indices where results[index].status == .failed {
            let result = results[index]
            logger.warning("delivery failed", [
                ("event_id", eventID), ("platform", result.platform.rawValue), ("token", Logger.redact(token: result.token)),
                ("reason", result.reason ?? "unknown"), ("retryable", String(result.retryable ?? false)),
            ])
        }
        return answer
    }
}

/// A notify answered at once, before anything is sent: its body was refused.
struct HTTPResponseRefusal: Error {
    let response: HTTPResponse
}
