public import EventLoops
public import PayloadBuilder

/// A push provider's client over a pool of long-lived HTTP/2 connections:
/// the one skeleton every provider shares. Per send: take the credential
/// (at once when it needs no wait), send every request with it, read each
/// answer (`Provider.outcome`), and when the provider refused the
/// credential, ask for a fresh one once and send those requests again with
/// it. The provider (`APNsProvider`, `FCMProvider`) says how each step reads.
///
/// A rejection is a value in the provider's outcome; a transport failure
/// is a `TransportError` (retryable where it says). Every request ends with
/// exactly one result, in order.
///
/// Thread-safety: `Sendable`; `send` may be called from many threads at once.
///
/// The per-send path is `@inlinable`, so that it is specialised for the
/// provider where it is called (the gateway, the benchmarks): across the
/// module boundary a generic method would run unspecialised, with every
/// outcome handled through the provider's witness table.
public final class ProviderClient<Provider: PushProvider>: Sendable {
    /// Where requests go.
    public let origin: Origin
    /// The provider's own part.
    public let provider: Provider
    @usableFromInline let pool: HTTP2ConnectionPool
    @usableFromInline let requestTimeout: Duration
    /// The `authorization` value, made once per credential.
    @usableFromInline let authorization: AuthorizationValues

    /// - Parameters:
    ///   - requestTimeout: per request, from `send` until its answer,
    ///     waiting for a credential and the re-send included.
    ///   - loops: event loops to run the connections on, shared with their
    ///     owner (the gateway's, one per core); nil: the pool's own.
    public init(provider: Provider, origin: Origin, tls: TLSConfiguration, connections: Int, requestTimeout: Duration,
                options: HTTP2ConnectionOptions, backoff: Backoff, loops: [EventLoop]?) throws(TransportError) {
        self.origin = origin
        self.provider = provider
        pool = try HTTP2ConnectionPool(host: origin.host, port: origin.port, tls: tls, connections: connections,
                                       options: options, backoff: backoff, loops: loops)
        self.requestTimeout = requestTimeout
        authorization = AuthorizationValues(scheme: provider.authorizationScheme)
    }

    /// Open connections (tests wait on it).
    public var openConnections: Int { pool.openConnections }

    /// Closes the connections.
    public func shutdown() {
        pool.shutdown()
    }

    /// Sends one rendered request and reads the answer.
    @inlinable
    public func send(_ request: ProviderRequest) async throws(TransportError) -> Provider.Outcome {
        try await send([request])[0].get()
    }

    /// Sends rendered requests together (one event's devices) and reads
    /// each answer, in order.
    @inlinable
    public func send(_ requests: [ProviderRequest]) async -> [Result<Provider.Outcome, TransportError>] {
        await withCheckedContinuation { continuation in
            send(requests) { continuation.resume(returning: $0) }
        }
    }

    /// As `send(_:)`, calling `completion` instead of suspending a task:
    /// with a credential at hand, from a connection's thread once every
    /// answer is in; a task is only started to wait for a credential or to
    /// send again after the provider refused one.
    ///
    /// - Parameter timeout: the time every request has, waiting for a
    ///   credential and the re-send included (a caller's deadline); the
    ///   client's request timeout when shorter or nil.
    @inlinable
    public func send(_ requests: [ProviderRequest], timeout: Duration? = nil,
                     completion: @escaping @Sendable ([Result<Provider.Outcome, TransportError>]) -> Void) {
        guard !requests.isEmpty else { return completion([]) }
        let deadline = ContinuousClock.now + min(timeout ?? requestTimeout, requestTimeout)
        if let credential = provider.credentialWithoutWaiting() {
            return send(requests, with: credential, deadline: deadline, completion: completion)
        }
        Task {
            send(requests, with: await provider.credential(before: deadline), deadline: deadline, completion: completion)
        }
    }

    @inlinable
    func send(_ requests: [ProviderRequest], with taken: Result<String, TransportError>, deadline: ContinuousClock.Instant,
                      completion: @escaping @Sendable ([Result<Provider.Outcome, TransportError>]) -> Void) {
        let credential: String
        switch taken {
        case let .success(found):
            credential = found
        case let .failure(error):
            return completion(Array(repeating: .failure(error), count: requests.count))
        }
        pool.send(httpRequests(requests, credential: credential, deadline: deadline)) { responses in
            let outcomes = self.outcomes(requests, responses)
            guard outcomes.contains(where: self.refusesCredential) else { return completion(outcomes) }
            Task {
                completion(await self.renewing(credential, requests, outcomes: outcomes, deadline: deadline))
            }
        }
    }

    /// Renews `credential` once for the requests whose answer refused it,
    /// and sends those again with the fresh one.
    @usableFromInline
    func renewing(_ credential: String, _ requests: [ProviderRequest], outcomes: [Result<Provider.Outcome, TransportError>],
                          deadline: ContinuousClock.Instant) async -> [Result<Provider.Outcome, TransportError>] {
        var outcomes = outcomes
        var refused: [Int] = []
        var refusals: [Provider.Outcome] = []
        for index in outcomes.indices {
            guard case let .success(outcome) = outcomes[index], provider.refusesCredential(outcome) else { continue }
            refused.append(index)
            refusals.append(outcome)
        }
        let renewal = await provider.renew(credential, refusals: refusals, before: deadline)
        var again: [Int] = []
        for (position, index) in refused.enumerated() {
            if let result = renewal.results[position] { outcomes[index] = result } else { again.append(index) }
        }
        guard let fresh = renewal.fresh, !again.isEmpty else { return outcomes }
        let resent = again.map { requests[$0] }
        let answers = self.outcomes(resent, await pool.send(httpRequests(resent, credential: fresh, deadline: deadline)))
        for (position, index) in again.enumerated() { outcomes[index] = answers[position] }
        return outcomes
    }

    @inlinable
    func refusesCredential(_ result: Result<Provider.Outcome, TransportError>) -> Bool {
        guard case let .success(outcome) = result else { return false }
        return provider.refusesCredential(outcome)
    }

    /// The requests with `credential`'s `authorization` and the time left until `deadline`.
    @inlinable
    func httpRequests(_ requests: [ProviderRequest], credential: String, deadline: ContinuousClock.Instant) -> HTTP2Requests {
        provider.httpRequests(requests, authorization: authorization.value(for: credential),
                              timeout: max(.zero, deadline - ContinuousClock.now))
    }

    /// Each answer read. The connection layer gives one result per request, in order.
    @inlinable
    func outcomes(_ requests: [ProviderRequest],
                          _ responses: [Result<HTTP2Response, TransportError>]) -> [Result<Provider.Outcome, TransportError>] {
        precondition(requests.count == responses.count, "\(responses.count) results for \(requests.count) requests")
        return responses.indices.map { index in
            switch responses[index] {
            case let .success(response): .success(provider.outcome(of: response, to: requests, at: index))
            case let .failure(error): .failure(error)
            }
        }
    }
}
