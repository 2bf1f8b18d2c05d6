import Foundation
import Synchronization
import PushGWSync

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
    private let slots: Locked<[ConnectionSlot<HTTP2Connection>]>
    private let isShutDown = Atomic<Bool>(false)

    public init(host: String, port: Int, tls: TLSConfiguration, connections: Int = 1,
                options: HTTP2ConnectionOptions = HTTP2ConnectionOptions(), backoff: Backoff = Backoff()) throws(TransportError) {
        self.host = host
        self.port = port
        context = try TLSClientContext(tls)
        self.options = options
        slots = Locked(Array(repeating: ConnectionSlot(backoff: backoff), count: max(1, connections)))
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
        try await send([request])[0].get()
    }

    /// Sends requests spread over the live connections, each batch handed to
    /// its connection at once. A request that a connection certainly did not
    /// process (GOAWAY, never sent, connect failed) is sent again on another,
    /// until its timeout runs out. Every request ends with exactly one result.
    public func send(_ requests: [HTTP2Request]) async -> [Result<HTTP2Response, TransportError>] {
        var results = [Result<HTTP2Response, TransportError>?](repeating: nil, count: requests.count)
        var pending = Array(requests.indices)
        let start = ContinuousClock.now
        var lastError: [Int: TransportError] = [:]
        while !pending.isEmpty {
            let now = ContinuousClock.now
            // Requests whose time is up end with the last reason they were not sent.
            pending.removeAll { index in
                guard start + requests[index].timeout <= now else { return false }
                results[index] = .failure(lastError[index]
                    ?? TransportError(.timeout, "no connection to \(host) within \(requests[index].timeout)"))
                return true
            }
            if pending.isEmpty { break }
            if isShutDown.load(ordering: .relaxed) {
                for index in pending { results[index] = .failure(TransportError(.shutdown, "pool for \(host) shut down")) }
                break
            }
            let connections: [HTTP2Connection]
            switch acquire(wanting: pending.count) {
            case let .success(chosen):
                connections = chosen
            case let .failure(waitUntil):
                let wait = waitUntil.instant - ContinuousClock.now
                if wait > .zero { try? await Task.sleep(for: min(wait, .milliseconds(200))) }
                continue
            }
            // Split the pending requests evenly over the chosen connections.
            var shares = Array(repeating: [Int](), count: connections.count)
            for (position, index) in pending.enumerated() { shares[position % connections.count].append(index) }
            let answers: [(Int, [Result<HTTP2Response, TransportError>])]
            if connections.count == 1 {
                // One connection: no child task needed.
                let batch = shares[0].count == requests.count ? requests : shares[0].map { requests[$0] }
                answers = [(0, await connections[0].send(batch, startedAt: start))]
            } else {
                answers = await withTaskGroup(of: (Int, [Result<HTTP2Response, TransportError>]).self) { group in
                for (slot, share) in shares.enumerated() where !share.isEmpty {
                    let batch = share.count == requests.count ? requests : share.map { requests[$0] }
                    let connection = connections[slot]
                    group.addTask { (slot, await connection.send(batch, startedAt: start)) }
                }
                var collected: [(Int, [Result<HTTP2Response, TransportError>])] = []
                for await answer in group { collected.append(answer) }
                return collected
            }
            }
            var retry: [Int] = []
            for (slot, outcomes) in answers {
                for (position, outcome) in outcomes.enumerated() {
                    let index = shares[slot][position]
                    if case let .failure(error) = outcome, error.wasNotProcessed, error.kind != .overloaded,
                       error.kind != .noHTTP2, error.kind != .certificateRejected {
                        lastError[index] = error
                        retry.append(index)
                    } else {
                        results[index] = outcome
                    }
                }
            }
            pending = retry
        }
        return results.map { $0! }
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

    /// The live connections to use for `wanting` requests (opening empty
    /// slots so load spreads), or, when every slot is backing off, the
    /// earliest instant to try again.
    private func acquire(wanting: Int) -> Result<[HTTP2Connection], WaitUntilInstant> {
        let now = ContinuousClock.now
        return slots.withLock { slots -> Result<[HTTP2Connection], WaitUntilInstant> in
            var live: [HTTP2Connection] = []
            var earliest: ContinuousClock.Instant?
            for index in slots.indices {
                switch slots[index].action(now: now) {
                case let .use(connection):
                    if connection.isAcceptingRequests { live.append(connection) }
                case .connect:
                    do {
                        let connection = try HTTP2Connection(host: host, port: port, context: context, options: options) { [weak self] ended in
                            self?.connectionEnded(ended)
                        }
                        slots[index].connecting(connection)
                        live.append(connection)
                    } catch {
                        slots[index].ended(neverConnected: true, now: now, jitter: Double.random(in: 0...1))
                    }
                case let .waitUntil(instant):
                    earliest = min(earliest ?? instant, instant)
                }
            }
            if live.isEmpty { return .failure(WaitUntilInstant(instant: earliest ?? now + .milliseconds(10))) }
            // A small batch goes to the least-loaded connections only.
            live.sort { $0.currentLoad < $1.currentLoad }
            return .success(Array(live.prefix(max(1, min(live.count, wanting)))))
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
