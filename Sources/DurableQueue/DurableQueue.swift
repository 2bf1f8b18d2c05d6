/// A durable queue of messages, one queue per name (the gateway's: one per
/// app), each consumed by a group of consumers: a message taken by one
/// consumer stays pending until that consumer acknowledges it, and one whose
/// consumer went silent (it died, or lost its connection) is taken over by
/// another after a visibility timeout. Nothing is dropped to make room: a
/// full queue refuses the message (`QueueFailure.full`, retryable).
///
/// The gateway's async mode goes through this seam only; `RedisStreamQueue`
/// is its implementation on Redis Streams.
public protocol DurableQueue: Sendable {
    /// Appends `payload` to queue `queue`, durably once this returns, and
    /// notes `name` (the caller's id of the message, e.g. an `event_id`)
    /// with `note` as `.queued` for `status`. Answers the message's id.
    func enqueue(_ queue: String, name: String, payload: [UInt8], note: [UInt8]) async throws(QueueFailure) -> String

    /// Acknowledges the message `id` of `queue`, taken as `name`: it is
    /// never delivered again, and `name` is noted as `outcome`.
    func acknowledge(_ queue: String, id: String, name: String, outcome: QueuedState) async throws(QueueFailure)

    /// What the queue knows of the message named `name`: nil when nothing
    /// (never enqueued, or forgotten after the queue's retention).
    func status(_ queue: String, name: String) async throws(QueueFailure) -> QueuedStatus?

    /// How many messages wait in `queue`, how many are taken and not yet
    /// acknowledged, and how old the oldest one is.
    func depth(_ queue: String) async throws(QueueFailure) -> QueueDepth

    /// Removes from `queue`'s consumer group every consumer other than
    /// `keeping` that has not read for `idleFor` and has nothing pending
    /// (its messages taken over by others already): a replica gone for
    /// good. A live consumer is never removed while it holds a message, and
    /// one removed by mistake comes back with its next read. Answers the
    /// names removed.
    func removeIdleConsumers(of queue: String, idleFor: Duration, keeping: String) async throws(QueueFailure) -> [String]

    /// A consumer of `queue` named `consumer` (unique within the fleet: a
    /// replica's name), with a connection of its own for its blocking reads.
    func makeConsumer(of queue: String, named consumer: String) throws(QueueFailure) -> any QueueConsumer
}

/// One consumer of a queue: takes new messages, and takes over those other
/// consumers left unacknowledged past the visibility timeout. What it takes
/// is pending on it until acknowledged (`DurableQueue.acknowledge`).
public protocol QueueConsumer: Sendable {
    /// New messages, up to `count`, waiting up to `wait` for the first one
    /// (an empty answer after it). Each is delivered for the first time.
    func receive(count: Int, wait: Duration) async throws(QueueFailure) -> [QueuedMessage]

    /// Messages pending on any consumer of the queue for at least `idleFor`,
    /// taken over by this one, up to `count`, with how many times each has
    /// now been delivered.
    func reclaim(idleFor: Duration, count: Int) async throws(QueueFailure) -> [QueuedMessage]

    /// Closes the consumer's connection; a read in progress fails.
    func close()
}

/// One message taken from a queue.
public struct QueuedMessage: Sendable, Equatable {
    /// The queue's id of the message (a stream entry id), for `acknowledge`.
    public let id: String
    /// The name it was enqueued with.
    public let name: String
    public let payload: [UInt8]
    /// How many times it has been delivered, this time included (1: the first).
    public let deliveries: Int

    public init(id: String, name: String, payload: [UInt8], deliveries: Int) {
        self.id = id
        self.name = name
        self.payload = payload
        self.deliveries = deliveries
    }
}

/// Where a named message stands.
public struct QueuedState: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Enqueued, not yet acknowledged (waiting, or being processed).
    public static let queued = QueuedState("queued")
    /// Processed and acknowledged: every part of it has its final outcome.
    public static let done = QueuedState("done")
    /// Acknowledged without being processed: it could not be (undecodable,
    /// or delivered too many times without an acknowledgement).
    public static let failed = QueuedState("failed")
}

/// What `DurableQueue.status` knows of a named message.
public struct QueuedStatus: Sendable, Equatable {
    public let state: QueuedState
    /// The message's id in the queue (the latest, when the name was enqueued again).
    public let id: String
    /// What the caller noted with it at `enqueue`.
    public let note: [UInt8]

    public init(state: QueuedState, id: String, note: [UInt8]) {
        self.state = state
        self.id = id
        self.note = note
    }
}

/// A queue's size, for the metrics.
public struct QueueDepth: Sendable, Equatable {
    /// Messages in the queue not yet acknowledged (waiting or taken).
    public let length: Int
    /// Messages taken by a consumer and not yet acknowledged.
    public let pending: Int
    /// Age of the oldest message not yet acknowledged; zero when none.
    public let oldestAge: Duration

    public init(length: Int, pending: Int, oldestAge: Duration) {
        self.length = length
        self.pending = pending
        self.oldestAge = oldestAge
    }
}
