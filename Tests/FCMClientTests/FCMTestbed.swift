import HTTP2Client
@testable import HTTP2Client
import APNsSimulator
import FCMClient
import Foundation
import PayloadBuilder
import TestSupport

/// An in-process strict FCM simulator (with its OAuth token endpoint) on
/// 127.0.0.1, a throwaway service account registered with it, and the
/// client-side pieces pointed at it: service account, token cache, client.
final class FCMTestbed {
    static let projectID = "pushgw-test"

    let simulator: FCMSimulator
    let account: ThrowawayServiceAccount
    let serviceAccount: ServiceAccount
    let clock: TestClock
    let caFile: String


    /// - Parameter sharedClock: drive the simulator's clock from `clock` too
    ///   (for expiry tests); otherwise it uses the real time.
    init(sharedClock: Bool = false, configure: (inout FCMSimulatorConfiguration) -> Void = { _ in }) throws {
        account = try FCMTestbedKeys.account()
        let clock = TestClock()
        self.clock = clock
        var configuration = FCMSimulatorConfiguration(projectID: Self.projectID, serviceAccounts: [account.registration])
        if sharedClock { configuration.clock = { Double(clock.epochSeconds) } }
        configure(&configuration)
        simulator = try FCMSimulator(configuration: configuration)
        try simulator.start()
        caFile = NSTemporaryDirectory() + "pushgw-fcm-test-ca-\(UUID().uuidString).pem"
        try simulator.writeCA(to: caFile)
        serviceAccount = try ServiceAccount(json: account.json(tokenURI: simulator.tokenURI))
    }

    deinit {
        simulator.stop()
        try? FileManager.default.removeItem(atPath: caFile)
    }

    var tokenEndpoint: TokenEndpointConfiguration {
        var configuration = TokenEndpointConfiguration(caFile: caFile)
        configuration.timeout = .seconds(10)
        return configuration
    }

    /// A token cache on the testbed's clock.
    func tokenCache(refreshMargin: Duration = AccessTokenCache.defaultRefreshMargin) -> AccessTokenCache {
        let clock = clock
        return AccessTokenCache(serviceAccount: serviceAccount, configuration: tokenEndpoint,
                                refreshMargin: refreshMargin, now: { clock.epochSeconds })
    }

    /// A client sending through `tokens` (a fresh cache when nil).
    func client(tokens: (any AccessTokenSource)? = nil, connections: Int = 1,
                requestTimeout: Duration = .seconds(10)) throws -> FCMClient {
        try FCMClient(baseURL: simulator.url, projectID: Self.projectID, tls: TLSConfiguration(caFile: caFile),
                      tokens: tokens ?? tokenCache(), connections: connections, requestTimeout: requestTimeout)
    }

    /// `count` messages for distinct devices, rendered by PayloadBuilder.
    func requests(count: Int, eventID: String = "conv-1:msg-1", text: String = "hello",
                  data: [DataEntry] = []) throws -> [ProviderRequest] {
        let app = AppProfile(name: "test", fcm: FCMTarget(projectID: Self.projectID, baseURL: simulator.url))
        let config = try RenderConfig(apps: [app])
        var rendered: [ProviderRequest] = []
        var offset = 0
        while rendered.count < count {
            let batch = min(500, count - rendered.count)
            let recipients = (0..<batch).map { index in
                Recipient(platform: .fcm, token: Self.token(offset + index), badge: 1)
            }
            let event = Event(eventID: "\(eventID)#\(offset)", conversation: Conversation(id: "conv-1", title: "Team"),
                              message: Message(id: "msg-1", text: text),
                              sender: Sender(id: "u-1", displayName: "Alice", avatarURL: "https://example.com/a.png"),
                              recipients: recipients, data: data)
            rendered += try EventRenderer(config: config)
                .render(event, app: app, avatar: .none, now: clock.epochSeconds).requests
            offset += batch
        }
        return rendered
    }

    /// An FCM-shaped registration token, distinct per index.
    static func token(_ index: Int) -> String {
        "fcm\(index):APA91b" + String(repeating: "x", count: 20) + "_\(index)"
    }
}

/// One throwaway service account (2048-bit RSA) for every test of the run:
/// generating the key is the slow part.
enum FCMTestbedKeys {
    private static let shared = Result { try ThrowawayServiceAccount(projectID: FCMTestbed.projectID) }

    static func account() throws -> ThrowawayServiceAccount { try shared.get() }
}
