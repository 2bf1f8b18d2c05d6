import Curl
import Foundation
import OpenSSLCrypto
import PayloadBuilder

/// Posts the final outcomes an app's caller must act on (rejected tokens,
/// final failures) to the app's `feedback_url`, after its queued event is
/// acknowledged: on a thread of its own, never holding up delivery or the
/// acknowledgement.
///
/// Each POST is JSON signed with HMAC-SHA256 under the app's secret:
/// `X-Pushgw-Timestamp: <epoch seconds>` and
/// `X-Pushgw-Signature: v1=<hex of HMAC(secret, timestamp + "." + body)>`.
/// A delivery answered other than 2xx, or not at all, is tried again after
/// `initialBackoff`, doubling, up to `maximumAttempts` in all; each attempt
/// is signed anew with its own timestamp. At most `capacity` deliveries
/// wait; past it the newest is dropped and counted
/// (`pushgw_feedback_total{result="dropped"}`).
public final class FeedbackWebhooks: Sendable {
    /// Where one app's feedback goes.
    public struct Target: Sendable {
        public var url: String
        public var secret: [UInt8]

        public init(url: String, secret: [UInt8]) {
            self.url = url
            self.secret = secret
        }
    }

    /// Tunables of delivery.
    public struct Settings: Sendable {
        public var maximumAttempts = 5
        public var initialBackoff: Duration = .seconds(1)
        public var maximumBackoff: Duration = .seconds(60)
        public var timeout: Duration = .seconds(5)
        public var capacity = 1000
        /// Schemes the URL may use; `http` too for a receiver on a private network.
        public var schemes = ["https", "http"]

        public init() {}
    }

    public static let deliveries = MetricsRegistry.Family(
        "pushgw_feedback_total", "Feedback webhook deliveries, by result (delivered, retried, failed, dropped).", type: "counter")

    let targets: [String: Target]
    let settings: Settings
    let registry: MetricsRegistry
    let logger: Logger
    let wallClock: @Sendable () -> Int64
    let outbox: FeedbackOutbox

    public init(targets: [String: Target], settings: Settings = Settings(), metrics: GatewayMetrics, logger: Logger = Logger(),
                wallClock: @escaping @Sendable () -> Int64 = Dispatcher.systemWallClock) {
        self.targets = targets
        self.settings = settings
        registry = metrics.registry
        registry.declare(Self.deliveries, labels: ["result"])
        self.logger = logger
        self.wallClock = wallClock
        outbox = FeedbackOutbox(capacity: settings.capacity)
        let thread = Thread { [outbox, settings, registry, logger, wallClock] in
            while let delivery = outbox.next() {
                Self.attempt(delivery, settings: settings, registry: registry, logger: logger, wallClock: wallClock, outbox: outbox)
            }
        }
        thread.name = "pushgw-feedback"
        thread.start()
    }

    /// The apps of `configuration` that have a feedback webhook.
    public static func targets(of configuration: GatewayConfiguration) -> [String: Target] {
        var targets: [String: Target] = [:]
        for app in configuration.apps {
            if let feedback = app.feedback { targets[app.name] = Target(url: feedback.url, secret: feedback.secret) }
        }
        return targets
    }

    /// Stops the delivery thread after the attempt in progress; deliveries still waiting are dropped.
    public func stop() {
        outbox.close()
    }

    /// Queues the feedback of one event from its notify answer: nothing
    /// when the app has no webhook or nothing is to report.
    func report(app: String, answer: [UInt8]) {
        guard let target = targets[app], let body = Self.feedback(app: app, answer: answer) else { return }
        if !outbox.add(FeedbackOutbox.Delivery(target: target, body: body, attempt: 1, due: .now)) {
            registry.increment(Self.deliveries, ["dropped"])
        }
    }

    /// `{"app", "event_id", "rejected": [{platform, token, reason}], "failed": [{platform, token, reason, retryable}]}`
    /// from a notify answer; nil when it has neither.
    static func feedback(app: String, answer: [UInt8]) -> [UInt8]? {
        guard let parsed = try? JSONParser.parse(answer), case let .array(results)? = parsed["results"],
              case let .string(eventID)? = parsed["event_id"] else { return nil }
        let rejected = results.filter { $0["status"] == .string(RecipientResult.Status.invalidToken.rawValue) }
        let failed = results.filter { $0["status"] == .string(RecipientResult.Status.failed.rawValue) }
        guard !rejected.isEmpty || !failed.isEmpty else { return nil }
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("app", app)
        writer.member("event_id", eventID)
        for (name, list) in [("rejected", rejected), ("failed", failed)] {
            writer.key(name)
            writer.beginArray()
            for result in list {
                writer.beginObject()
                for field in ["platform", "token", "reason"] {
                    if case let .string(value)? = result[field] { writer.member(field, value) }
                }
                if case let .bool(retryable)? = result["retryable"] {
                    writer.key("retryable")
                    writer.bool(retryable)
                }
                if case let .int(since)? = result["invalid_since_ms"] { writer.member("invalid_since_ms", since) }
                writer.endObject()
            }
            writer.endArray()
        }
        writer.endObject()
        return writer.bytes
    }

    /// The signature header's value for `body` sent at `timestamp`.
    public static func signature(secret: [UInt8], timestamp: Int64, body: [UInt8]) -> String {
        "v1=" + HMACSHA256.hex(key: secret, message: Array("\(timestamp).".utf8) + body)
    }

    /// One attempt, on the delivery thread; a failed one is queued again with its back-off.
    static func attempt(_ delivery: FeedbackOutbox.Delivery, settings: Settings, registry: MetricsRegistry, logger: Logger,
                        wallClock: @Sendable () -> Int64, outbox: FeedbackOutbox) {
        let timestamp = wallClock()
        let signature = signature(secret: delivery.target.secret, timestamp: timestamp, body: delivery.body)
        var failure: String
        do {
            let easy = try CurlEasy(options: CurlOptions(
                schemes: settings.schemes, userAgent: "pushgw",
                headers: ["Content-Type: application/json", "X-Pushgw-Timestamp: \(timestamp)", "X-Pushgw-Signature: \(signature)"],
                maximumBodyBytes: 64 * 1024))
            let response = try easy.perform(CurlRequest(target: .text(delivery.target.url), postBody: delivery.body,
                                                        timeout: settings.timeout, connectTimeout: settings.timeout))
            if (200..<300).contains(response.status) {
                registry.increment(deliveries, ["delivered"])
                return
            }
            failure = "status \(response.status)"
        } catch {
            failure = error.description
        }
        guard delivery.attempt < settings.maximumAttempts else {
            registry.increment(deliveries, ["failed"])
            logger.warning("feedback webhook gave up", [("attempts", String(delivery.attempt)), ("reason", failure)])
            return
        }
        registry.increment(deliveries, ["retried"])
        var backoff = settings.initialBackoff
        for _ in 1..<delivery.attempt { backoff = min(backoff * 2, settings.maximumBackoff) }
        _ = outbox.add(FeedbackOutbox.Delivery(target: delivery.target, body: delivery.body, attempt: delivery.attempt + 1,
                                              due: .now + backoff))
    }
}
