/// The lifecycle of one connection slot of a pool, as a value-type state
/// machine that returns what to do: tested without sockets.
///
/// A slot is empty, holds a live connection, or is backing off after failed
/// connects (exponential, capped, with jitter supplied by the caller so the
/// machine stays deterministic). A connection that was up and then ended
/// (GOAWAY, idle close, drop) is replaced at once; only failed connects back off.
public struct ConnectionSlot<Connection>: Sendable where Connection: Sendable {
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
    /// Consecutive failed connects.
    public private(set) var failures = 0
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

    /// The connection reached the server; the failure count resets.
    public mutating func connected() {
        failures = 0
    }

    /// The slot's connection ended. `neverConnected` means the connect itself
    /// failed; `jitter` in 0...1 scales the delay between 50% and 100%.
    public mutating func ended(neverConnected: Bool, now: ContinuousClock.Instant, jitter: Double) {
        guard neverConnected else {
            state = .empty
            return
        }
        failures += 1
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
