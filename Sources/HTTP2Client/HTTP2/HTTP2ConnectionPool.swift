public import EventLoops
import NetworkSockets
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
    /// Connections that served, then stopped taking requests (GOAWAY, an
    /// answer that retires them) and still finish their open streams: out
    /// of their slots, which hold fresh connections meanwhile, and kept
    /// here until they end, for `shutdown`. Locked after `slots`, never before.
    private let draining = Locked<[HTTP2Connection]>([])
    private let isShutDown = Atomic<Bool>(false)
    /// The threads that drive the pool's connections. Its own: one per two
    /// connections (slot `i` runs on loop `i / 2`); two connections share a
    /// loop well (one wake-up serves both, fewer threads take turns on the
    /// cores), four on one thread measured slower than on two. Given loops:
    /// slot `i` runs on loop `i % loops.count`.
    private let loops: [EventLoop]
    private let ownsLoops: Bool

    /// - Parameter loops: loops to run the connections on, shared with their
    ///   owner (who retires them); nil starts the pool's own.
    public init(host: String, port: Int, tls: TLSConfiguration, connections: Int = 1,
                options: HTTP2ConnectionOptions = HTTP2ConnectionOptions(), backoff: Backoff = Backoff(),
                loops: [EventLoop]? = nil) throws(TransportError) {
        self.host = host
        self.port = port
        context = try TLSClientContext.http2(tls)
        if let loops, !loops.isEmpty {
            self.loops = loops
            ownsLoops = false
        } else {
            var own: [EventLoop] = []
            do {
                for _ in 0..<(max(1, connections) + 1) / 2 { own.append(try EventLoop(name: "pushgw-h2-\(host)")) }
            } catch {
                throw TransportError(error)
            }
            self.loops = own
            ownsLoops = true
        }
        self.options = options
        slots = Locked(Array(repeating: ConnectionSlot(backoff: backoff), count: max(1, connections)))
    }

    deinit {
        shutdown()
    }

    /// Live connections (tests wait on it).
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
        await send(HTTP2Requests(requests))
    }

    /// As `send(_:)`, for requests in either form (`HTTP2Requests`).
    public func send(_ requests: HTTP2Requests) async -> [Result<HTTP2Response, TransportError>] {
        await send(requests, startedAt: ContinuousClock.now)
    }

    /// As `send(_:)`, calling `completion` instead of suspending a task: when
    /// live connections take the requests, the results come straight from
    /// their loop threads (no task is involved unless something has to be
    /// sent again or every connection is backing off).
    ///
    /// `completion` takes the results (`consuming`): it may move each one
    /// out instead of copying it.
    public func send(_ requests: [HTTP2Request],
                     completion: @escaping @Sendable (consuming [Result<HTTP2Response, TransportError>]) -> Void) {
        send(HTTP2Requests(requests), completion: completion)
    }

    /// As `send(_:completion:)`, for requests in either form (`HTTP2Requests`).
    public func send(_ requests: HTTP2Requests,
                     completion: @escaping @Sendable (consuming [Result<HTTP2Response, TransportError>]) -> Void) {
        let start = ContinuousClock.now
        guard !requests.isEmpty else { return completion([]) }
        guard !isShutDown.load(ordering: .relaxed), case let .success(connections) = acquire(wanting: requests.count) else {
            Task { completion(await self.send(requests, startedAt: start)) }
            return
        }
        if connections.count == 1 {
            // The common case (one request, or one live connection): no
            // gathering across connections, nothing allocated to merge.
            connections[0].send(requests, startedAt: start) { outcomes in
                self.resendingUnprocessed(requests, outcomes: outcomes, startedAt: start, completion: completion)
            }
            return
        }
        // Contiguous shares, each sent from the caller's array as it is (no
        // copy of a request per share, nor its destruction later).
        let shares = Self.split(requests.indices, over: connections.count)
        let gathered = Locked(Gathering<Result<HTTP2Response, TransportError>>(
            count: requests.count, parts: shares.count, missing: .failure(TransportError(.notSent, "no answer from the pool"))))
        for (slot, share) in shares.enumerated() {
            connections[slot].send(requests, in: share, startedAt: start) { outcomes in
                // Moved into the gathering, not copied (see `Gathering.add`).
                var part = outcomes
                guard let outcomes = gathered.withLock({ $0.add(Array(share), moving: &part) }) else { return }
                self.resendingUnprocessed(requests, outcomes: outcomes, startedAt: start, completion: completion)
            }
        }
    }

    /// Calls `completion` at once when no outcome needs another connection,
    /// else from a task once those requests are sent again.
    private func resendingUnprocessed(_ requests: HTTP2Requests, outcomes: consuming [Result<HTTP2Response, TransportError>],
                                      startedAt start: ContinuousClock.Instant,
                                      completion: @escaping @Sendable (consuming [Result<HTTP2Response, TransportError>]) -> Void) {
        guard outcomes.contains(where: Self.isWorthResending) else { return completion(outcomes) }
        var results = [Result<HTTP2Response, TransportError>?](repeating: nil, count: requests.count)
        var lastError: [Int: TransportError] = [:]
        let retry = Self.settle([(0, outcomes)], shares: [Array(requests.indices)], results: &results, lastError: &lastError)
        Task {
            await self.resend(requests, pending: retry, startedAt: start, results: &results, lastError: &lastError)
            completion(results.map { $0! })
        }
    }

    /// As `send(_:)`, each request's timeout counted from `startedAt`.
    func send(_ requests: HTTP2Requests, startedAt start: ContinuousClock.Instant) async -> [Result<HTTP2Response, TransportError>] {
        var results = [Result<HTTP2Response, TransportError>?](repeating: nil, count: requests.count)
        var lastError: [Int: TransportError] = [:]
        await resend(requests, pending: Array(requests.indices), startedAt: start, results: &results, lastError: &lastError)
        return results.map { $0! }
    }

    /// Sends the `pending` requests until each has a result in `results`.
    private func resend(_ requests: HTTP2Requests, pending: [Int], startedAt start: ContinuousClock.Instant,
                        results: inout [Result<HTTP2Response, TransportError>?], lastError: inout [Int: TransportError]) async {
        var pending = pending
        sending: while !pending.isEmpty {
            let now = ContinuousClock.now
            // Requests whose time is up end with the last reason they were not sent.
            var expired: [Int] = []
            pending.removeAll { index in
                guard start + requests.timeout(index) <= now else { return false }
                expired.append(index)
                return true
            }
            for index in expired {
                results[index] = .failure(lastError[index]
                    ?? TransportError(.timeout, "no connection to \(host) within \(requests.timeout(index))"))
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
                // Every slot is backing off after connections that failed: a
                // request does not wait out a long back-off (up to 30 s) for an
                // origin it cannot reach; it ends now as connect_failed
                // (retryable) and its caller retries on its own schedule. A
                // back-off about to end is waited for.
                if wait > Self.longestWaitForBackoff {
                    // The slots' own reason when known (a refused certificate
                    // stays final), else the connect failure this request saw.
                    let unreachable = TransportError(
                        .connectFailed, "cannot connect to \(host):\(port): every connection failed; next try in \(wait)")
                    for index in pending {
                        results[index] = .failure(waitUntil.failure
                            ?? lastError[index].flatMap { $0.kind == .connectFailed ? $0 : nil } ?? unreachable)
                    }
                    break sending
                }
                if wait > .zero { try? await Task.sleep(for: min(wait, .milliseconds(200))) }
                continue
            }
            let shares = Self.split(pending, over: connections.count)
            let answers: [(Int, [Result<HTTP2Response, TransportError>])]
            if connections.count == 1 {
                // One connection: no child task needed.
                let batch = Self.isWhole(shares[0], of: requests) ? requests : requests.subset(shares[0])
                answers = [(0, await connections[0].send(batch, startedAt: start))]
            } else {
                answers = await withTaskGroup(of: (Int, [Result<HTTP2Response, TransportError>]).self) { group in
                    for (slot, share) in shares.enumerated() where !share.isEmpty {
                        let batch = Self.isWhole(share, of: requests) ? requests : requests.subset(share)
                        let connection = connections[slot]
                        group.addTask { (slot, await connection.send(batch, startedAt: start)) }
                    }
                    var collected: [(Int, [Result<HTTP2Response, TransportError>])] = []
                    for await answer in group { collected.append(answer) }
                    return collected
                }
            }
            pending = Self.settle(answers, shares: shares, results: &results, lastError: &lastError)
        }
    }

    /// How long a request waits for a slot's back-off to end before it
    /// ends as connect_failed (the first two back-offs, 50–200 ms, are
    /// waited for; the longer ones mean the origin is down).
    static let longestWaitForBackoff: Duration = .milliseconds(250)

    /// `indices` split into at most `count` contiguous, non-empty ranges of
    /// sizes that differ by one at most.
    private static func split(_ indices: Range<Int>, over count: Int) -> [Range<Int>] {
        let parts = max(1, min(count, indices.count))
        let (size, larger) = indices.count.quotientAndRemainder(dividingBy: parts)
        var shares: [Range<Int>] = []
        shares.reserveCapacity(parts)
        var start = indices.lowerBound
        for part in 0..<parts {
            let end = start + size + (part < larger ? 1 : 0)
            shares.append(start..<end)
            start = end
        }
        return shares
    }

    /// The request indices split evenly over `count` connections.
    private static func split(_ indices: [Int], over count: Int) -> [[Int]] {
        var shares = Array(repeating: [Int](), count: count)
        for (position, index) in indices.enumerated() { shares[position % count].append(index) }
        return shares
    }

    /// Whether `share` is every request, in order: the batch is then the
    /// requests themselves, not a copy. (The count alone is not enough: a
    /// share in another order would have its answers filed under the
    /// wrong requests.)
    static func isWhole(_ share: [Int], of requests: HTTP2Requests) -> Bool {
        share.count == requests.count && share.elementsEqual(requests.indices)
    }

    /// Files each connection's answers under their request index; returns
    /// the requests to send again (certainly not processed, and worth
    /// another connection), in request order whatever order the
    /// connections answered in, remembering why in `lastError`.
    static func settle(_ answers: [(Int, [Result<HTTP2Response, TransportError>])], shares: [[Int]],
                               results: inout [Result<HTTP2Response, TransportError>?],
                               lastError: inout [Int: TransportError]) -> [Int] {
        var retry: [Int] = []
        for (slot, outcomes) in answers {
            for (position, outcome) in outcomes.enumerated() {
                let index = shares[slot][position]
                if case let .failure(error) = outcome, isWorthResending(outcome) {
                    lastError[index] = error
                    retry.append(index)
                } else {
                    results[index] = outcome
                }
            }
        }
        return retry.sorted()
    }

    /// A failure that certainly was not processed and that another
    /// connection may well take (not a full queue, not a server that refuses
    /// HTTP/2 or our trust, not a proxy that refuses the tunnel).
    private static func isWorthResending(_ outcome: Result<HTTP2Response, TransportError>) -> Bool {
        guard case let .failure(error) = outcome else { return false }
        return error.wasNotProcessed && ![.overloaded, .noHTTP2, .certificateRejected, .proxyRefused, .addressRefused].contains(error.kind)
    }

    /// Closes every connection; in-flight requests finish or fail.
    public func shutdown() {
        guard !isShutDown.exchange(true, ordering: .relaxed) else { return }
        let connections = slots.withLock { slots in
            slots.compactMap { slot -> HTTP2Connection? in
                if case let .active(connection) = slot.state { return connection }
                return nil
            } + draining.withLock { $0 }
        }
        for connection in connections { connection.shutdown(graceful: true) }
        // Its own loops' threads stop once those connections have ended.
        if ownsLoops { for loop in loops { loop.retire() } }
    }

    /// The live connections to use for `wanting` requests (opening empty
    /// slots so load spreads), or, when every slot is backing off, the
    /// earliest instant to try again.
    private func acquire(wanting: Int) -> Result<[HTTP2Connection], WaitUntilInstant> {
        let now = ContinuousClock.now
        return slots.withLock { slots -> Result<[HTTP2Connection], WaitUntilInstant> in
            // Checked under the lock `shutdown` collects the connections
            // under: a connection opened here is either among those it shuts
            // down, or not opened at all.
            if isShutDown.load(ordering: .relaxed) { return .failure(WaitUntilInstant(instant: now, failure: nil)) }
            var live: [HTTP2Connection] = []
            var earliest: ContinuousClock.Instant?
            var failure: TransportError?
            for index in slots.indices {
                switch slots[index].action(now: now) {
                case let .use(connection):
                    if connection.isAcceptingRequests {
                        live.append(connection)
                    } else if connection.hasAnswered {
                        // It served and now drains: a fresh connection takes
                        // its slot at once rather than once the last of its
                        // streams is answered. (One that never answered
                        // keeps the slot until it ends, and the slot then
                        // backs off: a server that closes every connection
                        // at once is not reconnected to in a loop.)
                        draining.withLock { $0.append(connection) }
                        slots[index].ended(.endedAfterUse, now: now, jitter: 0)
                        if let fresh = connect(slot: index, in: &slots[index], now: now) { live.append(fresh) }
                    }
                case .connect:
                    if let fresh = connect(slot: index, in: &slots[index], now: now) { live.append(fresh) }
                case let .waitUntil(instant):
                    if earliest.map({ instant < $0 }) ?? true {
                        earliest = instant
                        failure = slots[index].lastFailure
                    }
                }
            }
            if live.isEmpty { return .failure(WaitUntilInstant(instant: earliest ?? now + .milliseconds(10), failure: failure)) }
            // A small batch goes to the least-loaded connections only.
            live.sort { $0.currentLoad < $1.currentLoad }
            // On a loop's own thread (a request from the HTTP server sharing
            // it), a connection of that loop takes one request with no thread
            // crossed, unless it is much busier than the least-loaded one.
            if wanting == 1, let local = live.first(where: \.isOnCurrentLoop),
               local.currentLoad <= live[0].currentLoad + Self.localPreference {
                return .success([local])
            }
            return .success(Array(live.prefix(max(1, min(live.count, wanting)))))
        }
    }

    /// Opens a connection in `slot` (which backs off when that fails at once).
    private func connect(slot index: Int, in slot: inout ConnectionSlot<HTTP2Connection>,
                         now: ContinuousClock.Instant) -> HTTP2Connection? {
        do {
            let connection = try HTTP2Connection(host: host, port: port, context: context, options: options,
                                                 loop: loop(forSlot: index)) { [weak self] ended in
                self?.connectionEnded(ended)
            }
            slot.connecting(connection)
            return connection
        } catch {
            slot.ended(.failedToConnect, now: now, jitter: Double.random(in: 0...1), failure: error)
            return nil
        }
    }

    /// How many more requests than the least-loaded connection a connection
    /// of the caller's own loop may have and still be preferred.
    private static let localPreference = 64

    private func loop(forSlot index: Int) -> EventLoop {
        ownsLoops ? loops[index / 2] : loops[index % loops.count]
    }

    private func connectionEnded(_ connection: HTTP2Connection) {
        let now = ContinuousClock.now
        slots.withLock { slots in
            for index in slots.indices {
                if case let .active(current) = slots[index].state, current === connection {
                    let ending: ConnectionSlot<HTTP2Connection>.Ending = !connection.didConnect ? .failedToConnect
                        : connection.endedSoonWithoutAnswer ? .endedWithoutAnswer : .endedAfterUse
                    slots[index].ended(ending, now: now, jitter: Double.random(in: 0...1),
                                       failure: ending == .endedAfterUse ? nil : connection.endReason)
                }
            }
            draining.withLock { $0.removeAll { $0 === connection } }
        }
    }
}

/// When every slot is backing off: the earliest instant worth trying again,
/// and why that slot failed, when known.
struct WaitUntilInstant: Error {
    let instant: ContinuousClock.Instant
    let failure: TransportError?
}
