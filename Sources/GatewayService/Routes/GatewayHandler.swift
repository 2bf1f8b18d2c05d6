public import GatewayHTTP
import PayloadBuilder

/// Routes HTTP requests to the gateway's endpoints (API.md "Endpoints"):
/// bearer auth, the JSON error shapes, `/metrics`, health and readiness.
public struct GatewayHandler: HTTPHandler {
    public let dispatcher: Dispatcher
    public let tokens: BearerTokens
    /// nil: `/metrics` is open; else its own token.
    public let metricsTokens: BearerTokens?
    /// Only when explicitly allowed on loopback.
    public let allowUnauthenticated: Bool
    public let metrics: GatewayMetrics
    /// What keeps the gateway from taking traffic (shutting down, a provider
    /// known bad); empty when ready. Besides it, the handler checks that no
    /// app's provider is known bad (`Dispatcher.providersKnownBad`).
    public let readiness: @Sendable () -> [String]
    /// Refreshes gauges and polled counters just before `/metrics` renders.
    public let beforeScrape: @Sendable () -> Void
    /// Admits notifications until shutdown starts and counts those in
    /// progress, for the drain; once shutdown is announced, `/readyz` says
    /// "shutting down".
    public let gate: RequestGate
    /// The async mode (`mode=async`, `/v1/events/{event_id}`); nil: no
    /// queue is configured, and both answer `async_unavailable`.
    public let asyncNotify: AsyncNotify?
    private let requestSeries: HTTPRequestSeries
    private let readinessSeries: ReadinessSeries
    private let refusals: RefusalLog

    public init(dispatcher: Dispatcher, tokens: BearerTokens, metricsTokens: BearerTokens? = nil, allowUnauthenticated: Bool = false,
                metrics: GatewayMetrics, gate: RequestGate = RequestGate(), readiness: @escaping @Sendable () -> [String] = { [] },
                beforeScrape: @escaping @Sendable () -> Void = {}, asyncNotify: AsyncNotify? = nil) {
        self.dispatcher = dispatcher
        self.asyncNotify = asyncNotify
        self.gate = gate
        self.tokens = tokens
        self.metricsTokens = metricsTokens
        self.allowUnauthenticated = allowUnauthenticated
        self.metrics = metrics
        self.readiness = readiness
        self.beforeScrape = beforeScrape
        requestSeries = HTTPRequestSeries(registry: metrics.registry)
        readinessSeries = ReadinessSeries(metrics.registry, senders: dispatcher.senders.mapValues { Array($0.keys) })
        refusals = RefusalLog(logger: dispatcher.logger)
    }

    public func respondImmediately(_ request: HTTPRequest) -> HTTPResponse? {
        guard let response = immediateAnswer(request, Route.of(request.path)) else { return nil }
        answered(path: request.path, response)
        return response
    }

    /// A client waiting for `100 Continue`: a wrong method, token or path
    /// is answered before it uploads the body.
    public func respondBeforeBody(_ request: HTTPRequest) -> HTTPResponse? {
        let route = Route.of(request.path)
        let response: HTTPResponse?
        switch route?.action {
        case .notify: response = refusal(request, route!) ?? modeRefusal(request) ?? (gate.isClosed ? Self.notTakenWhileStopping : nil)
        case .render: response = refusal(request, route!)
        case .eventStatus, .metrics, .health, .readiness, nil: response = answerAtOnce(request, route)
        }
        if let response { answered(path: request.path, response) }
        return response
    }

    /// A notify that passed the checks: the dispatcher answers it from the
    /// provider connections' threads (or its own task when it must wait).
    public func respondLater(_ request: HTTPRequest, reply: HTTPReply) -> Bool {
        guard Route.of(request.path)?.action == .notify, request.mode != "async" else { return false }
        guard gate.admit() else {
            if reply.send(Self.notTakenWhileStopping) { answered(path: request.path, Self.notTakenWhileStopping) }
            return true
        }
        // The completion keeps what it uses, not a copy of the whole handler.
        let (gate, requestSeries, refusals) = (gate, requestSeries, refusals)
        dispatcher.notify(body: request.body) { response in
            // Counted only when it is what the client gets (not after a stop's 503).
            if reply.send(response) { Self.count(route: "/v1/notify", response, requestSeries, refusals) }
            gate.release()
        }
        return true
    }

    /// A notification that arrives once shutdown started (on a connection
    /// opened before): nothing of it was sent, so the client may send it
    /// again at once, to another instance.
    static let notTakenWhileStopping = error(
        .shuttingDown, "the gateway is shutting down and sent nothing for this request: send it again (to another instance)")

    /// Counts every answer, by route (the endpoint, or `other`) and status.
    public func answered(path: String, _ response: HTTPResponse) {
        Self.count(route: Route.label(path), response, requestSeries, refusals)
    }

    /// `answered`, with the route label, the handler's series and refusal log passed in.
    private static func count(route: String, _ response: HTTPResponse, _ requestSeries: HTTPRequestSeries, _ refusals: RefusalLog) {
        requestSeries.count(route: route, status: response.status)
        if response.status >= 400 { refusals.refused(route: route, response) }
    }

    /// Counted by the server, through `answered`, once delivered.
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let route = Route.of(request.path)
        switch route?.action {
        case .notify:
            if let refusal = refusal(request, route!) ?? modeRefusal(request) { return refusal }
            guard gate.admit() else { return Self.notTakenWhileStopping }
            defer { gate.release() }
            if request.mode == "async", let asyncNotify { return await asyncNotify.enqueue(body: request.body) }
            return await dispatcher.notify(body: request.body)
        case .render:
            if let refusal = refusal(request, route!) { return refusal }
            return await dispatcher.render(body: request.body)
        case .eventStatus:
            if let refusal = refusal(request, route!) { return refusal }
            guard let asyncNotify else { return AsyncRefusal.unavailable }
            return await asyncNotify.status(eventID: Route.eventID(in: request.path) ?? "")
        case .metrics, .health, .readiness, nil:
            return answerAtOnce(request, route)
        }
    }

    /// A `mode` other than `async` or `sync`, or `async` with no queue; nil when the mode is served.
    private func modeRefusal(_ request: HTTPRequest) -> HTTPResponse? {
        switch request.mode {
        case nil, "sync": nil
        case "async": asyncNotify == nil ? AsyncRefusal.unavailable : nil
        default: AsyncRefusal.invalidMode
        }
    }

    /// Everything but a notify that passed the checks, and a render whose
    /// avatar must be downloaded first.
    private func immediateAnswer(_ request: HTTPRequest, _ route: Route?) -> HTTPResponse? {
        switch route?.action {
        case .notify:
            return refusal(request, route!) ?? modeRefusal(request) ?? (gate.isClosed ? Self.notTakenWhileStopping : nil)
        case .render:
            return refusal(request, route!) ?? dispatcher.renderWithoutWaiting(body: request.body)
        case .eventStatus:
            return refusal(request, route!) ?? (asyncNotify == nil ? AsyncRefusal.unavailable : nil)
        case .metrics, .health, .readiness, nil:
            return answerAtOnce(request, route)
        }
    }

    /// The route's method, access and body-size checks; nil when the request passes.
    private func refusal(_ request: HTTPRequest, _ route: Route) -> HTTPResponse? {
        guard route.methods.include(request.method) else { return Self.methodNotAllowed(allow: route.methods.allow) }
        switch route.access {
        case .apiToken:
            guard allowUnauthenticated || tokens.authorizes(request.authorization) else {
                return Self.unauthorized("send Authorization: Bearer <token> with a configured token")
            }
        case .metricsToken:
            if let metricsTokens, !metricsTokens.authorizes(request.authorization) {
                return Self.unauthorized("send Authorization: Bearer <metrics token>")
            }
        case .anyone:
            break
        }
        if route.methods == .post, request.bodyTooLarge {
            return Self.error(.bodyTooLarge, "the body is larger than \(dispatcher.config.limits.maximumBodyBytes) bytes")
        }
        return nil
    }

    /// The answer of a route that never waits (metrics, health, readiness),
    /// or the 404 of a path that is no route.
    private func answerAtOnce(_ request: HTTPRequest, _ route: Route?) -> HTTPResponse {
        guard let route else {
            return Self.error(.notFound, "no such endpoint; see /v1/notify, /v1/render, /v1/events/{event_id}, /metrics, /healthz, /readyz")
        }
        if let refusal = refusal(request, route) { return refusal }
        switch route.action {
        case .metrics:
            beforeScrape()
            let knownBad = dispatcher.providersKnownBad
            readinessSeries.update(reasons: readinessReasons(knownBad: knownBad), knownBad: knownBad)
            return HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8",
                                body: Array(metrics.registry.exposition().utf8))
        case .health:
            return HTTPResponse(status: 200, body: Array(#"{"status":"ok"}"#.utf8))
        case .readiness:
            let reasons = readinessReasons(knownBad: dispatcher.providersKnownBad)
            let degraded = reasons.isEmpty ? dispatcher.dedupStoreDegraded : []
            guard !reasons.isEmpty || !degraded.isEmpty else {
                return HTTPResponse(status: 200, body: Array(#"{"status":"ready"}"#.utf8))
            }
            var writer = JSONWriter()
            writer.beginObject()
            writer.member("status", reasons.isEmpty ? "ready" : "not_ready")
            writer.key(reasons.isEmpty ? "degraded" : "reasons")
            writer.beginArray()
            for reason in reasons.isEmpty ? degraded : reasons { writer.string(reason) }
            writer.endArray()
            writer.endObject()
            return HTTPResponse(status: reasons.isEmpty ? 200 : 503, body: writer.bytes)
        case .notify, .render, .eventStatus:
            // Not reached: the callers give these to the dispatcher.
            return Self.error(.notFound, "no such endpoint")
        }
    }

    /// Why the gateway is not ready (`/readyz`'s reasons); empty when it is.
    private func readinessReasons(knownBad: [String]) -> [String] {
        (gate.isShuttingDown ? ["shutting down"] : []) + readiness() + knownBad + dispatcher.dedupStoreNotReady
    }

    static func error(_ code: ErrorCode, _ message: String) -> HTTPResponse {
        HTTPResponse(status: code.httpStatus, body: EventError(code, field: nil, message).jsonBody)
    }

    /// 405 with the methods the route takes (RFC 9110 §15.5.6: `Allow` is required).
    private static func methodNotAllowed(allow: String) -> HTTPResponse {
        var response = error(.methodNotAllowed, "use \(allow)")
        response.headers = [HTTPHeaderField("Allow", allow)]
        return response
    }

    /// 401 with the scheme to use (RFC 9110 §11.6.1: `WWW-Authenticate` is required).
    private static func unauthorized(_ message: String) -> HTTPResponse {
        var response = error(.unauthorized, message)
        response.headers = [HTTPHeaderField("WWW-Authenticate", #"Bearer realm="pushgw""#)]
        return response
    }
}
