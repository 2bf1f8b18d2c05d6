public import DurableQueue
import GatewayHTTP
import PayloadBuilder
import PushGWSync
import Synchronization

/// The async mode's consumer on one replica: for each app, a loop that
/// takes events from the app's queue (new ones, and those another replica
/// left unacknowledged past the visibility timeout), sends each through the
/// same pipeline as a sync notify (`Dispatcher.notify`: claim, send, retry,
/// record), and acknowledges it only once its outcome is recorded.
///
/// - An event whose notify ends with every device final (200 or 502:
///   sent, invalid token, or failed after its retries) is acknowledged as
///   `done`; its rejected tokens and final failures go to the app's
///   feedback webhook, if any, without holding the acknowledgement.
/// - An event the pipeline refuses (400: it no longer validates, say after
///   a configuration change) is acknowledged as `failed`.
/// - An event that could not be sent (the dedup store unreachable, a copy
///   in progress elsewhere) is left pending: after the visibility timeout
///   a consumer, this one or another, takes it over. The pipeline's dedup
///   record makes that safe: devices already settled are not sent again,
///   and a re-sent APNs notification carries the same `apns-id` and
///   `apns-collapse-id` (both derived from the `event_id`).
/// - An event delivered more than `maximumDeliveries` times (it kills its
///   consumers, or never gets a final outcome) is given up rather than
///   looping: acknowledged as `failed`, counted
///   (`pushgw_queue_given_up_total{app}`), and its devices without a final
///   outcome reported to the feedback webhook as failed for good.
public final class QueueWorker: Sendable {
    /// Tunables of the consumer loops.
    public struct Settings: Sendable {
        /// How long a taken event may stay unacknowledged before another
        /// consumer takes it over. Above the request deadline, so that a
        /// live consumer's event is not sent twice at once.
        public var visibilityTimeout: Duration = .seconds(60)
        /// Deliveries of one event, take-overs included, before it is given up as failed.
        public var maximumDeliveries: Int = 5
        /// Most events taken by one read, per app.
        public var batch: Int = 32
        /// Most events of one app being sent at once on this replica; a
        /// new read is made as soon as one finishes.
        public var inFlight: Int = 128
        /// How long a read waits for a new event.
        public var wait: Duration = .seconds(1)
        /// How often the loop looks for events to take over and refreshes the queue gauges.
        public var reclaimInterval: Duration = .seconds(5)
        /// A consumer (another replica's) idle this long, with nothing
        /// pending, is removed from the consumer group: a replica gone for
        /// good, whose events were taken over. Well above the visibility
        /// timeout.
        public var deadConsumerAge: Duration = .seconds(86_400)
        /// The pause after a queue call failed (the store down), doubling up to `maximumBackoff`.
        public var backoff: Duration = .milliseconds(100)
        public var maximumBackoff: Duration = .seconds(2)

        public init() {}
    }

    let queue: any DurableQueue
    let dispatcher: Dispatcher
    /// This replica's name in the consumer groups (unique in the fleet).
    let consumer: String
    let settings: Settings
    let feedback: FeedbackWebhooks?
    let series: QueueSeries
    let state = Locked(State())

    struct State {
        var loops: [Task<Void, Never>] = []
        var consumers: [any QueueConsumer] = []
        var stopped = false
    }

    public init(queue: any DurableQueue, dispatcher: Dispatcher, consumer: String, settings: Settings = Settings(),
                feedback: FeedbackWebhooks? = nil) {
        self.queue = queue
        self.dispatcher = dispatcher
        self.consumer = consumer
        self.settings = settings
        self.feedback = feedback
        series = QueueSeries(dispatcher.metrics.registry)
    }

    /// Starts one consumer loop per configured app.
    public func start() throws(QueueFailure) {
        for app in dispatcher.config.apps {
            let consumer = try queue.makeConsumer(of: app.name, named: self.consumer)
            let loop = Task { await self.run(app: app.name, consumer: consumer) }
            state.withLock {
                $0.consumers.append(consumer)
                $0.loops.append(loop)
            }
        }
    }

    /// Stops taking events, closes the consumers' connections and waits for
    /// the loops: events being sent finish (and are acknowledged) first.
    public func stop() async {
        let (loops, consumers) = state.withLock { state in
            state.stopped = true
            return (state.loops, state.consumers)
        }
        for consumer in consumers { consumer.close() }
        for loop in loops { await loop.value }
    }

    var isStopped: Bool { state.withLock { $0.stopped } }

    /// One app's consumer loop: keeps up to `settings.inFlight` events in
    /// flight at all times, reading more as events finish rather than
    /// waiting for a whole batch (one slow event, say one retrying a
    /// provider, no longer holds up the others' successors). Each event is
    /// acknowledged by its own task once its outcome is recorded; a read
    /// waits for new events only while there is room, and a full loop waits
    /// for one event to finish.
    private func run(app: String, consumer: any QueueConsumer) async {
        let inFlight = InFlightCount()
        // One signal kept at most: the loop, woken, counts again; a finish
        // signalled before the loop waits is not lost.
        let (finished, finish) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        var finishes = finished.makeAsyncIterator()
        var lastReclaim: ContinuousClock.Instant?
        var pause = settings.backoff
        await withDiscardingTaskGroup { group in
            while !isStopped {
                let room = min(settings.batch, settings.inFlight - inFlight.value.load(ordering: .acquiring))
                guard room > 0 else {
                    _ = await finishes.next()
                    continue
                }
                do throws(QueueFailure) {
                    var messages: [QueuedMessage] = []
                    if lastReclaim.map({ ContinuousClock.now - $0 >= settings.reclaimInterval }) ?? true {
                        lastReclaim = .now
                        messages = try await consumer.reclaim(idleFor: settings.visibilityTimeout, count: room)
                        if !messages.isEmpty { series.reclaimed.add(Double(messages.count)) }
                        series.depth(app, try await queue.depth(app))
                        let age = settings.deadConsumerAge
                        for gone in try await queue.removeIdleConsumers(of: app, idleFor: age, keeping: self.consumer) {
                            dispatcher.logger.info("removed a queue consumer gone for good", [
                                ("app", app), ("consumer", gone), ("idle_at_least_seconds", String(age.components.seconds)),
                            ])
                        }
                    }
                    if messages.isEmpty, !isStopped {
                        messages = try await consumer.receive(count: room, wait: settings.wait)
                    }
                    pause = settings.backoff
                    for message in messages {
                        inFlight.value.add(1, ordering: .relaxed)
                        group.addTask {
                            await self.process(message, app: app)
                            inFlight.value.subtract(1, ordering: .releasing)
                            finish.yield()
                        }
                    }
                } catch {
                    guard !isStopped else { break }
                    dispatcher.logger.warning("queue unavailable", [("app", app), ("reason", error.description)])
                    try? await Task.sleep(for: pause)
                    pause = min(pause * 2, settings.maximumBackoff)
                }
            }
        }
        finish.finish()
    }

    /// One event: sent through the pipeline, then acknowledged, or left pending.
    func process(_ message: QueuedMessage, app: String) async {
        if message.deliveries > settings.maximumDeliveries {
            dispatcher.logger.error("event given up after too many deliveries", [
                ("event_id", message.name), ("app", app), ("deliveries", String(message.deliveries)),
            ])
            series.givenUp(app).add(1)
            if let feedback, let answer = await givenUpAnswer(message) { feedback.report(app: app, answer: answer) }
            await acknowledge(message, app: app, as: .failed)
            return
        }
        let response = await dispatcher.notify(body: message.payload)
        switch response.status {
        case 200, 502:
            await acknowledge(message, app: app, as: .done)
            feedback?.report(app: app, answer: response.body)
        case 400..<500 where response.status != 409:
            dispatcher.logger.error("queued event refused", [("event_id", message.name), ("app", app), ("status", String(response.status))])
            await acknowledge(message, app: app, as: .failed)
        default:
            // Not sent (store unavailable, a copy in progress): left pending for a take-over.
            series.outcome("left_pending").add(1)
        }
    }

    /// A given-up event as a notify answer for the feedback webhook: each
    /// device without a final outcome in the event's dedup record (none,
    /// or a failure) as failed for good. nil when the payload no longer
    /// decodes (no devices to name) or every device is settled.
    func givenUpAnswer(_ message: QueuedMessage) async -> [UInt8]? {
        guard let (event, profile) = try? EventDecoder(config: dispatcher.config).decode(message.payload) else { return nil }
        let recorded = try? await dispatcher.dedup.lookup(DedupKey.of(event, app: profile.name)).get()
        let open = event.recipients.filter { recipient in
            !(recorded?.results.contains { $0.isFor(recipient) && $0.isSettled } ?? false)
        }
        guard !open.isEmpty else { return nil }
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("event_id", event.eventID)
        writer.key("results")
        writer.beginArray()
        for recipient in open {
            writer.beginObject()
            writer.member("platform", recipient.platform.rawValue)
            writer.member("token", recipient.token)
            writer.member("status", RecipientResult.Status.failed.rawValue)
            writer.member("reason", "given up after \(message.deliveries - 1) deliveries without an outcome")
            writer.key("retryable")
            writer.bool(false)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    private func acknowledge(_ message: QueuedMessage, app: String, as outcome: QueuedState) async {
        do {
            try await queue.acknowledge(app, id: message.id, name: message.name, outcome: outcome)
            series.outcome(outcome.rawValue).add(1)
        } catch {
            // Left pending: a take-over finds its outcome recorded and sends nothing again.
            dispatcher.logger.warning("event not acknowledged", [("event_id", message.name), ("reason", error.description)])
            series.outcome("ack_failed").add(1)
        }
    }
}

/// Events of one consumer loop being sent: raised by the loop, lowered by
/// each event's task as it finishes.
private final class InFlightCount: Sendable {
    let value = Atomic<Int>(0)
}
