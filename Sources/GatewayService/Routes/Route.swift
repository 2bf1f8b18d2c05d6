import GatewayHTTP

/// One of the gateway's endpoints (API.md "Endpoints"): its path, the
/// methods it takes, who may call it and what it does. Every request is
/// resolved to one through `Route.table`, once per handler call, and the
/// handler acts on the route's fields rather than on the path again.
struct Route: Sendable {
    /// What a route does with a request that passed its checks.
    enum Action: Sendable {
        case notify, render, metrics, health, readiness
        /// `GET /v1/events/{event_id}`: the async mode's record of an event.
        case eventStatus
    }

    /// The methods a route takes.
    enum Methods: Sendable {
        /// POST, with a body whose size the server limits.
        case post
        /// GET, and HEAD the same (libmicrohttpd leaves the body out).
        case read

        /// As the `Allow` header of a 405 lists them.
        var allow: String {
            switch self {
            case .post: "POST"
            case .read: "GET, HEAD"
            }
        }

        func include(_ method: String) -> Bool {
            switch self {
            case .post: method == "POST"
            case .read: method == "GET" || method == "HEAD"
            }
        }
    }

    /// Who may call a route.
    enum Access: Sendable {
        /// A configured API bearer token (unless unauthenticated use is allowed).
        case apiToken
        /// The metrics token, when one is configured; anyone otherwise.
        case metricsToken
        case anyone
    }

    /// The path, also the `route` label of `pushgw_http_requests_total`.
    let path: String
    let methods: Methods
    let access: Access
    let action: Action

    /// Every endpoint.
    static let table: [Route] = [
        Route(path: "/v1/notify", methods: .post, access: .apiToken, action: .notify),
        Route(path: "/v1/render", methods: .post, access: .apiToken, action: .render),
        Route(path: "/metrics", methods: .read, access: .metricsToken, action: .metrics),
        Route(path: "/healthz", methods: .read, access: .anyone, action: .health),
        Route(path: "/readyz", methods: .read, access: .anyone, action: .readiness),
    ]

    /// The route of every `/v1/events/{event_id}`, its path the template.
    static let eventStatus = Route(path: "/v1/events/{event_id}", methods: .read, access: .apiToken, action: .eventStatus)
    /// What precedes the `event_id` in an event status path.
    static let eventStatusPrefix = "/v1/events/"

    /// The route of `path`; nil for any other path (404).
    static func of(_ path: String) -> Route? {
        if let route = table.first(where: { $0.path == path }) { return route }
        return eventID(in: path) == nil ? nil : eventStatus
    }

    /// The `event_id` of an event status path (percent-decoded by the server); nil for any other path.
    static func eventID(in path: String) -> String? {
        guard path.hasPrefix(eventStatusPrefix), path.utf8.count > eventStatusPrefix.utf8.count else { return nil }
        return String(path.dropFirst(eventStatusPrefix.count))
    }

    /// The `route` label for `path`: its endpoint's, or `other` (a bounded label).
    static func label(_ path: String) -> String {
        of(path)?.path ?? "other"
    }
}
