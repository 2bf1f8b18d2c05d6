import Foundation
import Synchronization

/// N HTTP/2 connections to one origin, so throughput scales past one
/// connection and one connection's death loses nothing: each request goes to
/// the least-loaded live connection, and a request that a connection did not
/// process (GOAWAY, never sent, connect failed) is sent again on another.
/// Generic: the APNs and FCM clients both use it.
public final class HTTP2ConnectionPool: Sendable {
    public let host: String
    public let port: Int
    private let context: TLSClientContext
    private let options: HTTP2ConnectionOptions
    private let slots: Mutex<[ConnectionSlot<HTTP2Connection>]>
    private let isShutDown = Atomic<Bool>(false)

    public init(host: String, port: Int, tls: TLSConfiguration, connections: Int = 1,
                options: HTTP2ConnectionOptions = HTTP2ConnectionOptions(), backoff: Backoff = Backoff()) throws(TransportError) {
        self.host = host
        self.port = port
        context = try TLSClientContext(tls)
        self.options = options
        slots = Mutex(Array(repeating: ConnectionSlot(backoff: backoff), count: max(1, connections)))
    }

    deinit {
        shutdown()
    }

    /// Live connections (for tests and metrics).
    public var openConnections: Int {
        slots.withLock { slots in
            slots.filter { if case .active = $0.state { return true } else { return false } }.count
        }
    }

    /// Sends `request`, re-sending it on another connection when the first one
    /// certainly did not process it, until its timeout runs out.
    public func send(_ request: HTTP2Request) async throws(TransportError) -> HTTP2Response {
        let deadline = ContinuousClock.now + request.timeout
        var lastError = TransportError(.timeout, "no connection to \(host) within \(request.timeout)")
        while ContinuousClock.now < deadline {
            guard !isShutDown.load(ordering: .relaxed) else { throw TransportError(.shutdown, "pool for \(host) shut down") }
            let connection: HTTP2Connection
            switch acquire() {
            case let .success(chosen):
                connection = chosen
            case let .failure(waitUntil):
                let wait = min(waitUntil.instant, deadline) - ContinuousClock.now
                if wait > .zero { try? await Task.sleep(for: wait) }
                continue
            }
            var attempt = request
            attempt.timeout = deadline - ContinuousClock.now
            do {
                return try await connection.send(attempt)
            } catch where error.wasNotProcessed && error.kind != .overloaded {
                lastError = error
                if error.kind == .noHTTP2 || error.kind == .certificateRejected { throw error }
                continue
            }
        }
        throw lastError
    }

    /// Closes every connection; in-flight requests finish or fail.
    public func shutdown() {
        guard !isShutDown.exchange(true, ordering: .relaxed) else { return }
        let connections = slots.withLock { slots in
            slots.compactMap { slot -> HTTP2Connection? in
                if case let .active(connection) = slot.state { return connection }
                return nil
            }
        }
        for connection in connections { connection.shutdown(graceful: true) }
    }

    /// The least-loaded live connection, a new one in an empty slot, or when
    /// every slot is backing off, the earliest instant to try again.
    private func acquire() -> Result<HTTP2Connection, WaitUntilInstant> {
        let now = ContinuousClock.now
        return slots.withLock { slots -> Result<HTTP2Connection, WaitUntilInstant> in
            var best: HTTP2Connection?
            var earliest: ContinuousClock.Instant?
            var emptySlot: Int?
            for index in slots.indices {
                switch slots[index].action(now: now) {
                case let .use(connection):
                    if connection.isAcceptingRequests, best == nil || connection.currentLoad < best!.currentLoad {
                        best = connection
                    }
                case .connect:
                    if emptySlot == nil { emptySlot = index }
                case let .waitUntil(instant):
                    earliest = min(earliest ?? instant, instant)
                }
            }
            // Open every slot's connection as soon as there is traffic, so load spreads.
            if let emptySlot, best == nil || best!.currentLoad > 0 {
                do {
                    let connection = try HTTP2Connection(host: host, port: port, context: context, options: options) { [weak self] ended in
                        self?.connectionEnded(ended)
                    }
                    slots[emptySlot].connecting(connection)
                    return .success(connection)
                } catch {
                    slots[emptySlot].ended(neverConnected: true, now: now, jitter: Double.random(in: 0...1))
                }
            }
            if let best { return .success(best) }
            return .failure(WaitUntilInstant(instant: earliest ?? now + .milliseconds(10)))
        }
    }

    private func connectionEnded(_ connection: HTTP2Connection) {
        let now = ContinuousClock.now
        slots.withLock { slots in
            for index in slots.indices {
                if case let .active(current) = slots[index].state, current === connection {
                    if connection.didConnect { slots[index].connected() }
                    slots[index].ended(neverConnected: !connection.didConnect, now: now, jitter: Double.random(in: 0...1))
                }
            }
        }
    }
}

/// When every slot is backing off: the earliest instant worth trying again.
struct WaitUntilInstant: Error {
    let instant: ContinuousClock.Instant
}
