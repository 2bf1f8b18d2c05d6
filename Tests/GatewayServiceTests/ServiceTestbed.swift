import APNsHTTP2
@testable import HTTP2Client
import APNsSimulator
import PushGWDemo
@testable import OpenSSLCrypto
import EventLoops
import FCMClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GatewayService
@testable import GatewayHTTP
import PayloadBuilder
import DurableQueue
import WebPushClient

/// A gateway (HTTP server, dispatcher, real APNs and FCM clients) on
/// 127.0.0.1 in front of the strict APNs and FCM simulators, and an HTTP
/// client to call it. Threads as in `Gateway`: two event loops run the
/// HTTP daemons and the provider connections together.
final class ServiceTestbed {
    static let bearer = "test-token-0123456789"
    static let topic = "com.example.pushgw"

    let simulator: APNsSimulator
    let fcmSimulator: FCMSimulator
    let fcm: FCMClient
    let accessTokens: AccessTokenCache
    let fcmCAFile: String
    let server: HTTPServer
    let metrics = GatewayMetrics()
    let tokens: ProviderTokenCache
    let caFile: String
    let apns: APNsClient
    let dispatcher: Dispatcher
    let loops: [EventLoop]
    /// The web push sender, when the testbed sends web push.
    let webPush: WebPushSender?

    init(settings: Dispatcher.Settings = Dispatcher.Settings(), selfSenders: Set<String> = [],
         logger: Logger = Logger(minimumLevel: .error), avatars: any AvatarResolving = UncheckedAvatars(),
         dedup: any DedupStore = InMemoryDedupStore(),
         providerTimeout: Duration = .seconds(5), limits: HTTPServerLimits = HTTPServerLimits(),
         queue: (any DurableQueue)? = nil, webPush: WebPushSender? = nil) throws {
        loops = try (0..<2).map { try EventLoop(name: "testbed-loop-\($0)") }
        let key = try ES256SigningKey.generate()
        simulator = try APNsSimulator(configuration: APNsSimulatorConfiguration(
            teamID: "TEAM123456", keys: ["KEYID12345": key.publicKeyPEM], topics: [Self.topic]))
        try simulator.start()
        caFile = NSTemporaryDirectory() + "pushgw-service-ca-\(UUID().uuidString).pem"
        try simulator.writeCA(to: caFile)
        tokens = try ProviderTokenCache(keyID: "KEYID12345", teamID: "TEAM123456", signingKey: key)
        apns = try APNsClient(origin: simulator.url, tls: TLSConfiguration(caFile: caFile), tokens: tokens,
                              requestTimeout: providerTimeout, options: metrics.timingRequests(to: "apns"), loops: loops, now: { Int64(Date().timeIntervalSince1970) })
        let account = try ThrowawayServiceAccount(projectID: "pushgw-test")
        fcmSimulator = try FCMSimulator(configuration: FCMSimulatorConfiguration(projectID: "pushgw-test",
                                                                                  serviceAccounts: [account.registration]))
        try fcmSimulator.start()
        fcmCAFile = NSTemporaryDirectory() + "pushgw-service-fcm-ca-\(UUID().uuidString).pem"
        try fcmSimulator.writeCA(to: fcmCAFile)
        accessTokens = AccessTokenCache(serviceAccount: try ServiceAccount(json: account.json(tokenURI: fcmSimulator.tokenURI)),
                                        configuration: TokenEndpointConfiguration(caFile: fcmCAFile))
        fcm = try FCMClient(baseURL: fcmSimulator.url, projectID: "pushgw-test", tls: TLSConfiguration(caFile: fcmCAFile),
                            tokens: accessTokens, requestTimeout: providerTimeout, options: metrics.timingRequests(to: "fcm"),
                            loops: loops)
        let app = AppProfile(name: "demo", apns: APNsTarget(topic: Self.topic, baseURL: simulator.url),
                             fcm: FCMTarget(projectID: "pushgw-test", baseURL: fcmSimulator.url), sendsWebPush: webPush != nil)
        let config = try RenderConfig(apps: [app], selfSenderIDs: selfSenders)
        var senders: [Platform: any NotificationSender] = [.apns: APNsSender(client: apns), .fcm: FCMSender(client: fcm)]
        if let webPush { senders[.webpush] = WebPushNotificationSender(sender: webPush) }
        self.webPush = webPush
        dispatcher = Dispatcher(config: config, senders: ["demo": senders],
                                avatars: avatars, dedup: dedup, metrics: metrics, settings: settings, logger: logger)
        let dispatcher = dispatcher
        let asyncNotify = queue.map { AsyncNotify(queue: $0, dispatcher: dispatcher) }
        server = HTTPServer(address: "127.0.0.1", port: 0, limits: limits,
                            handler: GatewayHandler(dispatcher: dispatcher, tokens: BearerTokens([Self.bearer]), metrics: metrics,
                                                    asyncNotify: asyncNotify),
                            loops: loops, answerStorage: dispatcher.answerStorage)
        try server.start()
    }

    deinit {
        server.stop()
        apns.shutdown()
        fcm.shutdown()
        webPush?.shutdown()
        simulator.stop()
        fcmSimulator.stop()
        for loop in loops { loop.retire() }
        try? FileManager.default.removeItem(atPath: caFile)
        try? FileManager.default.removeItem(atPath: fcmCAFile)
    }

    var baseURL: String { "http://127.0.0.1:\(server.port)" }

    /// Requests to `provider` (`apns`, `fcm`) sent and not yet answered, as
    /// the gateway's `pushgw_provider_in_flight` gauge reports them.
    func providerRequestsInFlight(_ provider: String) -> Double {
        metrics.registry.value(GatewayMetrics.providerInFlight, [provider])
    }

    /// Calls the gateway over real HTTP (Foundation's URLSession).
    func call(_ method: String, _ path: String, body: [UInt8]? = nil, bearer: String? = ServiceTestbed.bearer,
              timeout: TimeInterval = 60) async throws -> (status: Int, body: [UInt8], contentType: String?) {
        try await Self.call(baseURL, method, path, body: body, bearer: bearer, timeout: timeout)
    }

    /// The same, from any task: only the base URL crosses.
    static func call(_ baseURL: String, _ method: String, _ path: String, body: [UInt8]? = nil,
                     bearer: String? = ServiceTestbed.bearer,
                     timeout: TimeInterval = 60) async throws -> (status: Int, body: [UInt8], contentType: String?) {
        var request = URLRequest(url: URL(string: baseURL + path)!, timeoutInterval: timeout)
        request.httpMethod = method
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = Data(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        return (http.statusCode, Array(data), http.value(forHTTPHeaderField: "Content-Type"))
    }

    static func token(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return String(repeating: "0", count: 64 - hex.count) + hex
    }

    /// A valid event for APNs recipients `tokens`.
    static func event(id: String = "c-1:m-1", tokens: [String], text: String = "hello", senderID: String = "u-1",
                      userIDs: [String?]? = nil, avatarURL: String? = nil, fcmTokens: [String] = []) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("event_id", id)
        writer.key("conversation"); writer.beginObject(); writer.member("id", "c-1"); writer.endObject()
        writer.key("message"); writer.beginObject(); writer.member("id", "m-1"); writer.member("text", text); writer.endObject()
        writer.key("sender"); writer.beginObject(); writer.member("id", senderID); writer.member("display_name", "Alice")
        if let avatarURL { writer.member("avatar_url", avatarURL) }
        writer.endObject()
        writer.key("recipients")
        writer.beginArray()
        for (index, token) in tokens.enumerated() {
            writer.beginObject()
            writer.member("platform", "apns")
            writer.member("token", token)
            if let userID = userIDs?[index] { writer.member("user_id", userID) }
            writer.endObject()
        }
        for token in fcmTokens {
            writer.beginObject()
            writer.member("platform", "fcm")
            writer.member("token", token)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }
}

extension DemoProviders {
    /// A gateway configuration from the environment `pushgw simulators`
    /// prints, listening on any free loopback port with the testbed's token.
    func gatewayConfiguration() throws -> GatewayConfiguration {
        var environment = Dictionary(uniqueKeysWithValues: gatewayEnvironment.map { ($0.name, $0.value) })
        environment["PUSHGW_LISTEN"] = "127.0.0.1:0"
        environment["PUSHGW_BEARER_TOKENS"] = ServiceTestbed.bearer
        return try ConfigurationLoader(environment: environment).load()
    }
}

extension ServiceTestbed {
    /// `fixtures/payloads/seed-chat-sdk.event.json`, the seed event.
    static func seedEvent() throws -> [UInt8] {
        Array(try Data(contentsOf: GoldenFixtures.directory.appendingPathComponent("seed-chat-sdk.event.json")))
    }
}
