/// The lifecycle of one connection slot of a pool, as a value-type state
/// machine that returns what to do: tested without sockets.
///
/// A slot is empty, holds a live connection, or is backing off after
/// connections that failed (exponential, capped, with jitter supplied by the
/// caller so the machine stays deterministic). A connection that served and
/// then ended (GOAWAY, idle close, drop) is replaced at once. One that failed
/// to connect, or that ended soon after its handshake without a single
/// answer (a server that accepts and at once sends GOAWAY or closes), backs
/// off: replacing it at once would open connections as fast as the server
/// can close them.
public struct ConnectionSlot<Connection>: Sendable where Connection: Sendable {
    /// What the slot holds: nothing, a live connection, or a wait before reconnecting.
    public enum State: Sendable {
        case empty
        case active(Connection)
        case backingOff(until: ContinuousClock.Instant)
    }

    /// What the pool should do for a request that wants this slot.
    public enum Action: Sendable {
        case use(Connection)
        case connect
        case waitUntil(ContinuousClock.Instant)
    }

    public private(set) var state: State = .empty
    /// Consecutive connections that failed (see `Ending`).
    public private(set) var failures = 0
    /// Why the last of them failed, when known: what a request that cannot
    /// wait out the back-off is told (a refused certificate stays that,
    /// not a generic connect failure).
    public private(set) var lastFailure: TransportError?
    public let backoff: Backoff

    public init(backoff: Backoff = Backoff()) {
        self.backoff = backoff
    }

    public func action(now: ContinuousClock.Instant) -> Action {
        switch state {
        case .empty: return .connect
        case let .active(connection): return .use(connection)
        case let .backingOff(until): return until <= now ? .connect : .waitUntil(until)
        }
    }

    /// A connection was created for this slot (it connects in the background).
    public mutating func connecting(_ connection: Connection) {
        state = .active(connection)
    }

    /// How a slot's connection ended.
    public enum Ending: Sendable, Equatable {
        /// DNS, TCP or TLS failed: it never connected.
        case failedToConnect
        /// It connected, then ended soon without a single answer.
        case endedWithoutAnswer
        /// It served (or lived long enough to count as healthy), then ended.
        case endedAfterUse
    }

    /// The slot's connection ended (`failure`: why, when it failed).
    /// `jitter` in 0...1 scales the delay between 50% and 100%.
    public mutating func ended(_ ending: Ending, now: ContinuousClock.Instant, jitter: Double, failure: TransportError? = nil) {
        guard ending != .endedAfterUse else {
            failures = 0
            lastFailure = nil
            state = .empty
            return
        }
        failures += 1
        lastFailure = failure
        state = .backingOff(until: now + backoff.delay(afterFailures: failures, jitter: jitter))
    }
}

/// Exponential back-off with a cap: base × 2^(n-1), at most `maximum`,
/// scaled by 50–100% with jitter.
public struct Backoff: Sendable, Equatable {
    public var base: Duration
    public var maximum: Duration

    public init(base: Duration = .milliseconds(100), maximum: Duration = .seconds(30)) {
        self.base = base
        self.maximum = maximum
    }

    public func delay(afterFailures failures: Int, jitter: Double) -> Duration {
        guard failures > 0 else { return .zero }
        let exponent = min(failures - 1, 30)
        let full = min(base * (1 << exponent), maximum)
        let fraction = 0.5 + 0.5 * min(max(jitter, 0), 1)
        return full * fraction
    }
}
