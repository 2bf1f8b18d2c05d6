import APNsSimulator
import Foundation
import GatewayService
import OpenSSLCrypto
import PayloadBuilder
import PushGWDemo
import TestSupport
import XCTest

/// A fleet in one process: several `Gateway` replicas configured as an
/// operator would (`PUSHGW_*` settings, `PUSHGW_REDIS_URL`), sharing a real
/// `redis-server` and one set of provider simulators: the demo's FCM
/// simulator, and an APNs simulator on the demo's key that records each
/// notification (with the provider token it carried), so that what the
/// fleet sent is counted at the provider.
final class FleetTestbed {
    let providers: DemoProviders
    /// The APNs simulator the replicas send to, recording.
    let apns: APNsSimulator
    let redis: RedisTestServer
    private let apnsCAFile: String
    private(set) var gateways: [Gateway] = []

    /// - Parameters:
    ///   - redisURL: the store's URL (default: `redis`'s, with no credentials).
    ///   - environment: more settings, over the testbed's.
    init(_ test: XCTestCase, replicas: Int, redis options: RedisTestServer.Options = RedisTestServer.Options(),
         redisURL: ((RedisTestServer) -> String)? = nil, environment extra: [String: String] = [:]) async throws {
        redis = try test.makeRedis(options)
        providers = try DemoProviders()
        apnsCAFile = providers.folder + "/fleet-apns-ca.pem"
        apns = try APNsSimulator.recording(for: providers, caFile: apnsCAFile)

        var environment = Dictionary(uniqueKeysWithValues: providers.gatewayEnvironment.map { ($0.name, $0.value) })
        environment["PUSHGW_APNS_BASE_URL"] = apns.url
        environment["PUSHGW_APNS_CA_FILE"] = apnsCAFile
        environment["PUSHGW_LISTEN"] = "127.0.0.1:0"
        environment["PUSHGW_BEARER_TOKENS"] = ServiceTestbed.bearer
        environment["PUSHGW_REDIS_URL"] = redisURL?(redis) ?? redis.url
        if options.tls { environment["PUSHGW_REDIS_CA_FILE"] = redis.caFile }
        environment.merge(extra) { $1 }
        let gatewayConfiguration = try ConfigurationLoader(environment: environment).load()
        for _ in 0..<replicas {
            let gateway = try Gateway(configuration: gatewayConfiguration, logger: Logger(minimumLevel: .error))
            gateways.append(gateway)
        }
        for gateway in gateways { await gateway.prepareProviderTokens() }
        for index in gateways.indices {
            try await waitUntil("replica \(index) is ready on the store") { try await self.readiness(index).status == 200 }
        }
    }

    func url(_ replica: Int) -> String { "http://127.0.0.1:\(gateways[replica].server.port)" }

    /// POSTs `body` to `/v1/notify` on `replica`.
    func notify(_ replica: Int, _ body: [UInt8]) async throws -> (status: Int, body: JSONValue) {
        try await Self.notify(url(replica), body)
    }

    /// POSTs `body` to `/v1/notify` at `baseURL`, from any task.
    static func notify(_ baseURL: String, _ body: [UInt8]) async throws -> (status: Int, body: JSONValue) {
        let answer = try await ServiceTestbed.call(baseURL, "POST", "/v1/notify", body: body)
        return (answer.status, try JSONParser.parse(answer.body))
    }

    /// `/readyz` of `replica`.
    func readiness(_ replica: Int) async throws -> (status: Int, body: String) {
        let answer = try await ServiceTestbed.call(url(replica), "GET", "/readyz", bearer: nil)
        return (answer.status, String(decoding: answer.body, as: UTF8.self))
    }

    /// `/metrics` of `replica`.
    func metrics(_ replica: Int) async throws -> String {
        String(decoding: try await ServiceTestbed.call(url(replica), "GET", "/metrics", bearer: nil).body, as: UTF8.self)
    }

    /// Notifications the providers accepted, APNs and FCM.
    var accepted: Int { apns.statistics.acceptedTotal + providers.fcm.statistics.acceptedTotal }

    /// Stops every replica, then the simulators.
    func shutdown() async {
        for gateway in gateways { await gateway.shutdown(drain: .seconds(2)) }
        apns.stop()
        providers.stop()
    }

    /// An event for two APNs devices and one FCM device.
    static func event(_ id: String) -> [UInt8] {
        ServiceTestbed.event(id: id, tokens: [ServiceTestbed.token(1), ServiceTestbed.token(2)], fcmTokens: ["fcm-device-1"])
    }
}

extension APNsSimulator {
    /// A started APNs simulator that accepts the demo's key and topic and
    /// records every notification, its CA written to `caFile`: the one
    /// provider the fleet tests' replicas share.
    static func recording(for providers: DemoProviders, caFile: String) throws -> APNsSimulator {
        let key = try ES256SigningKey(pem: Array(try Data(contentsOf: URL(fileURLWithPath: providers.keyFile))))
        var configuration = APNsSimulatorConfiguration(teamID: DemoProviders.teamID, keys: [DemoProviders.keyID: key.publicKeyPEM],
                                                       topics: [DemoProviders.topic])
        configuration.recordsNotifications = true
        let simulator = try APNsSimulator(configuration: configuration)
        try simulator.start()
        try simulator.writeCA(to: caFile)
        return simulator
    }
}
