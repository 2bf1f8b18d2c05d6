import APNsHTTP2
@testable import HTTP2Client
import APNsSimulator
@testable import OpenSSLCrypto
import Foundation
import PayloadBuilder
import TestSupport

/// An in-process strict APNs simulator on 127.0.0.1 and an `APNsClient`
/// pointed at it, with a real ES256 key, a real token cache and a settable clock.
final class APNsTestbed {
    static let teamID = "TEAM123456"
    static let keyID = "KEYID12345"
    static let topic = "com.example.pushgw"

    let simulator: APNsSimulator
    let key: ES256SigningKey
    let tokens: ProviderTokenCache
    let clock: TestClock
    let caFile: String

    /// - Parameter simulatorOnTestClock: the simulator reads `clock` too
    ///   (provider token ages and refresh intervals), else the real time.
    init(simulatorOnTestClock: Bool = false, configure: (inout APNsSimulatorConfiguration) -> Void = { _ in }) throws {
        key = try ES256SigningKey.generate()
        let clock = TestClock()
        var configuration = APNsSimulatorConfiguration(teamID: Self.teamID, keys: [Self.keyID: key.publicKeyPEM],
                                                       topics: [Self.topic])
        configuration.recordsNotifications = false
        if simulatorOnTestClock { configuration.clock = { Double(clock.epochSeconds) } }
        configure(&configuration)
        simulator = try APNsSimulator(configuration: configuration)
        try simulator.start()
        caFile = NSTemporaryDirectory() + "pushgw-test-ca-\(UUID().uuidString).pem"
        try simulator.writeCA(to: caFile)
        tokens = try ProviderTokenCache(keyID: Self.keyID, teamID: Self.teamID, signingKey: key)
        self.clock = clock
    }

    deinit {
        simulator.stop()
        try? FileManager.default.removeItem(atPath: caFile)
    }

    func client(connections: Int = 1, requestTimeout: Duration = .seconds(10),
                options: HTTP2ConnectionOptions = HTTP2ConnectionOptions(), backoff: Backoff = Backoff()) throws -> APNsClient {
        let clock = clock
        return try APNsClient(origin: simulator.url, tls: TLSConfiguration(caFile: caFile), tokens: tokens,
                              connections: connections, requestTimeout: requestTimeout, options: options,
                              backoff: backoff, now: { clock.epochSeconds })
    }

    /// `count` notifications for distinct devices, rendered by PayloadBuilder.
    func requests(count: Int, eventID: String = "conv-1:msg-1", text: String = "hello") throws -> [ProviderRequest] {
        var rendered: [ProviderRequest] = []
        let app = AppProfile(name: "test", apns: APNsTarget(topic: Self.topic, baseURL: simulator.url))
        let config = try RenderConfig(apps: [app])
        var offset = 0
        while rendered.count < count {
            let batch = min(500, count - rendered.count)
            let recipients = (0..<batch).map { index in
                Recipient(platform: .apns, token: Self.token(offset + index), badge: 1)
            }
            let event = Event(eventID: "\(eventID)#\(offset)", conversation: Conversation(id: "conv-1"),
                              message: Message(id: "msg-1", text: text),
                              sender: Sender(id: "u-1", displayName: "Alice"), recipients: recipients)
            rendered += try EventRenderer(config: config)
                .render(event, app: app, avatar: .none, now: clock.epochSeconds).requests
            offset += batch
        }
        return rendered
    }

    static func token(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return String(repeating: "0", count: 64 - hex.count) + hex
    }
}
