import HTTP2Client
import EventLoops
import OpenSSLCrypto
public import GatewayHTTP
import APNsHTTP2
import FCMClient
import WebPush
import WebPushClient
import Foundation
import PayloadBuilder
import Synchronization
public import DurableQueue

/// The running service: provider clients built from the configuration, the
/// dispatcher, and the HTTP server in front of them.
public final class Gateway: Sendable {
    public let configuration: GatewayConfiguration
    public let server: HTTPServer
    public let metrics: GatewayMetrics
    let apnsClients: [APNsClient]
    /// Each APNs app's provider-token source (in-process, or the fleet's).
    let apnsTokens: [APNsTokenSource]
    /// The connections and stores on Redis, when `redis.url` is configured.
    let redis: RedisStores?
    let fcmClients: [FCMClient]
    let webPushSenders: [WebPushSender]
    /// One event loop per core, running both the HTTP server's daemons and
    /// the provider connections: an event that needs no wait is read,
    /// rendered, sent and answered on one thread.
    let loops: [EventLoop]
    let logger: Logger
    /// Told when shutdown starts (`/readyz` answers 503 so load balancers
    /// move away), closed after the shutdown delay: a new notification is
    /// then refused (nothing sent), and the drain waits for the ones it
    /// admitted.
    private let gate = RequestGate()
    /// The async mode's consumer, when a queue was given.
    let queueWorker: QueueWorker?
    /// The apps' feedback webhooks, when a queue was given and an app has one.
    let feedback: FeedbackWebhooks?

    /// Builds every client and starts listening. Fails with the setting at fault.
    ///
    /// With `redis.url` configured, the gateway connects to that store (one
    /// connection per event loop, in the background), keeps its dedup
    /// claims and records there (`RedisDedupStore`) and, by default, shares
    /// each APNs key's provider token with the fleet through it
    /// (`RedisProviderTokenStore`); `/readyz` says when the store cannot be
    /// reached. Without it, everything stays in this process.
    /// - Parameter apnsTokens: where APNs provider tokens come from: by
    ///   default the fleet's store when one is configured, else this
    ///   process; or a store given here. With a shared store, call
    ///   ``prepareProviderTokens()`` before taking traffic.
    /// - Parameter queue: the async mode's queue; nil: the configured Redis
    ///   store's (`RedisStreamQueue`), or with none `mode=async` and `/v1/events/{event_id}` answer
    ///   `async_unavailable`. With one, this replica also consumes every
    ///   app's queue, as `consumerName` in the consumer groups.
    public init(configuration: GatewayConfiguration, logger: Logger,
                apnsTokens: APNsTokenSourcing = .configured, queue: (any DurableQueue)? = nil,
                consumerName: String = Gateway.defaultConsumerName()) throws(ServiceError) {
        guard !configuration.bearerTokens.isEmpty || (configuration.insecureNoAuth && configuration.listensOnLoopback) else {
            if configuration.insecureNoAuth {
                throw ServiceError(setting: configuration.insecureNoAuthSetting,
                                   "only allowed on a loopback address; \(configuration.listenAddress) is not one")
            }
            throw ServiceError(setting: "PUSHGW_BEARER_TOKENS_FILE",
                               "no API token configured: put one per line in a file (e.g. `openssl rand -hex 32 > tokens`) and set PUSHGW_BEARER_TOKENS_FILE, or pass --insecure-no-auth on a loopback address")
        }
        self.configuration = configuration
        self.logger = logger
        let metrics = GatewayMetrics()
        self.metrics = metrics
        let renderConfig = try configuration.renderConfig()
        var loops: [EventLoop] = []
        do {
            for index in 0..<max(1, HTTPServerLimits().threads) { loops.append(try EventLoop(name: "pushgw-loop-\(index)")) }
        } catch {
            throw ServiceError(setting: "threads", "cannot start the event loops: \(error)")
        }
        self.loops = loops
        // Before any client: a store that cannot be used refuses the start at once.
        let redis = try configuration.redis.url.map { url throws(ServiceError) in
            try RedisStores(configuration.redis, url: url, loops: loops)
        }
        self.redis = redis
        // The async mode runs on the fleet's store unless a queue is given.
        let queue: (any DurableQueue)? = queue ?? redis?.queue
        // Until the server is up, a failure closes the store's connections and ends the loops' threads.
        var started = false
        defer {
            if !started {
                redis?.close()
                for loop in loops { loop.retire() }
            }
        }
        let dedup: any DedupStore = redis?.dedup
            ?? InMemoryDedupStore(capacity: configuration.dedupCapacity, byteCapacity: configuration.dedupMemoryMegabytes << 20)
        let apnsTokens = apnsTokens.resolved(redis: redis)

        var senders: [String: [Platform: any NotificationSender]] = [:]
        var apnsClients: [APNsClient] = []
        var tokenSources: [APNsTokenSource] = []
        var fcmClients: [FCMClient] = []
        var accessTokenCaches: [AccessTokenCache] = []
        let providerOptions = { (provider: String) in
            var options = metrics.timingRequests(to: provider)
            options.route = configuration.proxy
            return options
        }
        var webPushSenders: [WebPushSender] = []
        for app in configuration.apps {
            if let apns = app.apns {
                let (client, source) = try Self.apnsClient(apns, app: app.name, options: providerOptions("apns"), loops: loops,
                                                           tokens: apnsTokens, logger: logger)
                apnsClients.append(client)
                tokenSources.append(source)
                senders[app.name, default: [:]][.apns] = APNsSender(client: client)
            }
            if let fcm = app.fcm {
                let (client, cache) = try Self.fcmClient(fcm, app: app.name, options: providerOptions("fcm"), loops: loops)
                fcmClients.append(client)
                accessTokenCaches.append(cache)
                senders[app.name, default: [:]][.fcm] = FCMSender(client: client)
            }
            if let webPush = app.webPush {
                let sender = try webPush.makeSender(options: providerOptions("webpush"), loops: loops)
                webPushSenders.append(sender)
                senders[app.name, default: [:]][.webpush] = WebPushNotificationSender(sender: sender)
            }
        }
        self.apnsClients = apnsClients
        self.apnsTokens = tokenSources
        self.fcmClients = fcmClients
        self.webPushSenders = webPushSenders
        var settings = Dispatcher.Settings()
        settings.dedupWindow = configuration.dedupWindow
        settings.requestDeadline = configuration.requestDeadline
        settings.onStoreFailure = configuration.redis.onFailure
        var avatarPolicy = configuration.avatar.policy
        avatarPolicy.route = configuration.proxy
        let avatars = AvatarResolver(policy: avatarPolicy, metrics: metrics.registry)
        let dispatcher = Dispatcher(config: renderConfig, senders: senders, avatars: avatars,
                                    dedup: dedup, metrics: metrics, settings: settings, logger: logger)
        let caches = tokenSources
        let grants = accessTokenCaches
        let targets = FeedbackWebhooks.targets(of: configuration)
        let feedback = queue == nil || targets.isEmpty ? nil : FeedbackWebhooks(targets: targets, metrics: metrics, logger: logger)
        self.feedback = feedback
        var workerSettings = QueueWorker.Settings()
        // A live consumer's event is never taken over while it may still be sending.
        workerSettings.visibilityTimeout = max(configuration.redis.queueVisibilityTimeout, configuration.requestDeadline * 2)
        workerSettings.maximumDeliveries = configuration.redis.queueMaximumDeliveries
        // A consumer is forgotten only long after it could still be sending.
        workerSettings.deadConsumerAge = max(configuration.redis.queueDeadConsumerAge, workerSettings.visibilityTimeout * 2)
        queueWorker = queue.map { QueueWorker(queue: $0, dispatcher: dispatcher, consumer: consumerName, settings: workerSettings,
                                              feedback: feedback) }
        let handler = GatewayHandler(
            dispatcher: dispatcher, tokens: BearerTokens(configuration.bearerTokens),
            metricsTokens: configuration.metricsToken.map { BearerTokens([$0]) },
            allowUnauthenticated: configuration.bearerTokens.isEmpty && configuration.insecureNoAuth,
            metrics: metrics,
            gate: gate,
            beforeScrape: {
                metrics.registry.set(GatewayMetrics.tokenRefresh, ["apns_jwt"], to: Double(caches.reduce(0) { $0 + $1.mintCount }))
                metrics.registry.set(GatewayMetrics.providerTokenFallback, ["apns"], to: Double(caches.reduce(0) { $0 + $1.fallbackCount }))
                metrics.registry.set(GatewayMetrics.providerTokenLocal, ["apns"], to: Double(caches.filter(\.usesLocalToken).count))
                metrics.registry.set(GatewayMetrics.tokenRefresh, ["fcm_oauth"], to: Double(grants.reduce(0) { $0 + $1.grantCount }))
            },
            asyncNotify: queue.map { AsyncNotify(queue: $0, dispatcher: dispatcher) })
        var limits = HTTPServerLimits()
        limits.maximumConnections = configuration.maxConnections
        limits.maximumConnectionsPerAddress = configuration.maxConnectionsPerAddress
        server = HTTPServer(address: configuration.listenAddress, port: configuration.listenPort, limits: limits, handler: handler,
                            loops: loops, log: { logger.log(ServerMessageLevel.level(of: $0), "http server", [("detail", $0)]) },
                            answerStorage: dispatcher.answerStorage)
        do {
            try server.start()
        } catch {
            throw ServiceError(setting: error.cause == .listen ? configuration.listenSetting : "threads", error.message)
        }
        do {
            try queueWorker?.start()
        } catch {
            server.stop()
            throw ServiceError(setting: configuration.redis.urlSetting, "cannot consume the async queue: \(error)")
        }
        started = true
        for source in tokenSources { source.fleet?.start() }
    }

    /// A consumer name unique in the fleet: host, process and a random part
    /// (a restarted process is a new consumer; its predecessor's events are
    /// taken over after the visibility timeout).
    public static func defaultConsumerName() -> String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
    }

    /// Brings every shared APNs token source up to date with the store (one
    /// refresh each) so that the first notification presents the fleet's
    /// token; with in-process tokens, nothing to do. Until it has run, a
    /// notification is sent with a token of the replica's own.
    public func prepareProviderTokens() async {
        for source in apnsTokens {
            await source.fleet?.prepare()
        }
    }

    private static func apnsClient(_ settings: GatewayConfiguration.APNsSettings,
                                   app: String, options: HTTP2ConnectionOptions,
                                   loops: [EventLoop], tokens sourcing: APNsTokenSourcing,
                                   logger: Logger) throws(ServiceError) -> (APNsClient, APNsTokenSource) {
        let setting = "apps.\(app).apns"
        let keySetting = settings.keyFileSetting ?? "\(setting).key_file"
        let pem: [UInt8]
        do {
            pem = try FileReader.read(settings.keyFile)
        } catch {
            throw ServiceError(setting: keySetting, ConfigurationLoader.cannotRead(settings.keyFile, error,
                                                                                shown: ConfigurationLoader.isShowable(settings.keyFile)))
        }
        let key: ES256SigningKey
        do {
            key = try ES256SigningKey(pem: String(decoding: pem, as: UTF8.self))
        } catch {
            throw ServiceError(setting: keySetting, "cannot use the APNs key in that file: \(error)")
        }
        let now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
        let tokens: APNsTokenSource
        do {
            tokens = try sourcing.source(keyID: settings.keyID, teamID: settings.teamID, signingKey: key,
                                         refreshAge: settings.tokenRefreshAge, logger: logger, now: now)
        } catch {
            switch error {
            case .refreshAgeOutOfRange:
                throw ServiceError(setting: settings.tokenRefreshSetting ?? "\(setting).token_refresh_minutes", "\(error)")
            case .invalidTeamID:
                throw ServiceError(setting: "\(setting).team_id", "\(error)")
            case .invalidKeyID, .signingFailed:
                throw ServiceError(setting: "\(setting).key_id", "\(error)")
            }
        }
        do {
            let client = try APNsClient(origin: settings.baseURL, tls: TLSConfiguration(caFile: settings.caFile), tokens: tokens.source,
                                        connections: settings.connections, options: options, loops: loops, now: now)
            return (client, tokens)
        } catch {
            throw Self.clientError(error, caFileSetting: settings.caFileSetting ?? "\(setting).ca_file",
                                   baseURLSetting: settings.baseURLSetting ?? "\(setting).base_url")
        }
    }

    private static func fcmClient(_ settings: GatewayConfiguration.FCMSettings,
                                  app: String, options: HTTP2ConnectionOptions,
                                  loops: [EventLoop]) throws(ServiceError) -> (FCMClient, AccessTokenCache) {
        let setting = settings.serviceAccountFileSetting ?? "apps.\(app).fcm.service_account_file"
        let bytes: [UInt8]
        do {
            bytes = try FileReader.read(settings.serviceAccountFile)
        } catch {
            throw ServiceError(setting: setting, ConfigurationLoader.cannotRead(settings.serviceAccountFile, error,
                                                                             shown: ConfigurationLoader.isShowable(settings.serviceAccountFile)))
        }
        let account: ServiceAccount
        do {
            account = try ServiceAccount(json: bytes)
        } catch {
            throw ServiceError(setting: setting, "not a usable service account: \(error)")
        }
        var endpoint = TokenEndpointConfiguration(caFile: settings.caFile)
        endpoint.route = options.route
        let cache = AccessTokenCache(serviceAccount: account, configuration: endpoint)
        do {
            let client = try FCMClient(baseURL: settings.baseURL, projectID: settings.projectID,
                                       tls: TLSConfiguration(caFile: settings.caFile), tokens: cache,
                                       connections: settings.connections, options: options, loops: loops)
            return (client, cache)
        } catch {
            throw Self.clientError(error, caFileSetting: settings.caFileSetting ?? "apps.\(app).fcm.ca_file",
                                   baseURLSetting: settings.baseURLSetting ?? "apps.\(app).fcm.base_url")
        }
    }

    /// A provider client that cannot be made: a certificate problem is the
    /// CA file's (the loader checked the base URL's shape already).
    private static func clientError(_ error: TransportError, caFileSetting: String, baseURLSetting: String) -> ServiceError {
        if error.kind == .certificateRejected {
            return ServiceError(setting: caFileSetting, "cannot use the CA file: \(error.detail)")
        }
        return ServiceError(setting: baseURLSetting, "\(error)")
    }

    /// Graceful stop. First, for `delay`, everything is served as before
    /// except `/readyz`, which answers 503 so that load balancers stop
    /// routing here while the listener is still open, and every answer
    /// carries `Connection: close`, so clients' kept-alive connections move
    /// to new ones, which the balancer routes elsewhere. Then no new
    /// connections and no new notifications (one that arrives on an open
    /// connection is answered 503 `shutting_down`, nothing sent); every
    /// answer from then on closes its connection; the notifications already
    /// taken (and any other request still waiting) get up to `drain` to
    /// finish; then everything closes.
    public func shutdown(delay: Duration = .zero, drain: Duration = .seconds(10)) async {
        gate.announceShutdown()
        if delay > .zero {
            server.closeConnectionsAfterAnswers()
            try? await Task.sleep(for: delay)
        }
        gate.close()
        server.quiesce()
        let deadline = ContinuousClock.now + drain
        while gate.inProgress > 0 || server.activeRequests > 0 || server.requestsBeingReceived > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        server.stop()
        // Events being sent from the queue finish and are acknowledged; the rest stay queued for another replica.
        await queueWorker?.stop()
        feedback?.stop()
        for source in apnsTokens { source.fleet?.stop() }
        redis?.close()
        for client in apnsClients { client.shutdown() }
        for client in fcmClients { client.shutdown() }
        for sender in webPushSenders { sender.shutdown() }
        // Each loop's thread ends once its connections have closed.
        for loop in loops { loop.retire() }
    }
}
