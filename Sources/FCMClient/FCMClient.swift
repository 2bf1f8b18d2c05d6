public import EventLoops
public import HTTP2Client
public import PayloadBuilder

/// Sends messages rendered by PayloadBuilder to FCM HTTP v1
/// (`POST /v1/projects/{project}/messages:send`) over a pool of long-lived
/// HTTP/2 connections, authenticated with an OAuth 2.0 access token from an
/// ``AccessTokenSource``: the shared `ProviderClient` with FCM's part,
/// `FCMProvider`.
///
/// Returns a typed outcome per message: `accepted(name:)`, or `rejected`
/// with the FCM error code and the `ProviderVerdict` it calls for (drop the
/// token, retry after `Retry-After`, configuration error, final). A transport
/// failure is a `TransportError` (retryable where it says).
///
/// A 401 or 403 without an FcmError detail means our access token was
/// refused: the client invalidates it, gets a fresh one (one grant, shared)
/// and resends those messages once; a second refusal stays a rejection with
/// ``ProviderVerdict/configuration(detail:)``.
public typealias FCMClient = ProviderClient<FCMProvider>

extension ProviderClient where Provider == FCMProvider {
    /// - Parameters:
    ///   - baseURL: `https://fcm.googleapis.com` (``FCMTarget/production``) or a simulator.
    ///   - projectID: the FCM project (the service account's `project_id`).
    ///   - tokens: where access tokens come from (an ``AccessTokenCache``).
    ///   - connections: HTTP/2 connections in the pool.
    ///   - requestTimeout: per message, from `send` until the answer.
    ///   - loops: event loops to run the connections on, shared with their
    ///     owner (the gateway's, one per core); nil: the pool's own.
    ///   - now: the clock in epoch seconds, for `Retry-After` dates.
    public convenience init(baseURL: String = FCMTarget.production, projectID: String, tls: TLSConfiguration = TLSConfiguration(),
                            tokens: any AccessTokenSource, connections: Int = 1, requestTimeout: Duration = .seconds(10),
                            options: HTTP2ConnectionOptions = HTTP2ConnectionOptions(), backoff: Backoff = Backoff(),
                            loops: [EventLoop]? = nil,
                            now: @escaping @Sendable () -> Int64 = AccessTokenCache.systemClock) throws(TransportError) {
        var options = options
        if options.keptResponseHeaders == nil { options.keptResponseHeaders = ["retry-after"] }
        try self.init(provider: FCMProvider(projectID: projectID, tokens: tokens, now: now), origin: Origin(url: baseURL), tls: tls,
                      connections: connections, requestTimeout: requestTimeout, options: options, backoff: backoff, loops: loops)
    }

    /// A client for `serviceAccount`'s project, with an ``AccessTokenCache``
    /// that fetches from the account's `token_uri`.
    public convenience init(serviceAccount: ServiceAccount, baseURL: String = FCMTarget.production,
                            tls: TLSConfiguration = TLSConfiguration(),
                            tokenEndpoint: TokenEndpointConfiguration = TokenEndpointConfiguration(),
                            connections: Int = 1, requestTimeout: Duration = .seconds(10)) throws(TransportError) {
        try self.init(baseURL: baseURL, projectID: serviceAccount.projectID, tls: tls,
                      tokens: AccessTokenCache(serviceAccount: serviceAccount, configuration: tokenEndpoint),
                      connections: connections, requestTimeout: requestTimeout)
    }

    /// The project this client sends for (from configuration or the service account).
    public var projectID: String { provider.projectID }
}
