import Foundation
import GatewayService
import PushGWDemo
import TestSupport
import XCTest

/// The gateway as `pushgw serve` starts it in demo mode: a configuration
/// with nothing provider-related, pointed at the built-in simulators by
/// `DemoProviders.configure`, on a free loopback port with the testbed's
/// bearer token. Given a Redis URL (`redis.url`) it also has the async
/// queue and the Redis dedup store, and given a feedback URL every app
/// posts its async feedback there.
final class DemoModeGateway {
    let providers: DemoProviders
    let gateway: Gateway

    init(redisURL: String? = nil, feedbackURL: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        var environment = ["PUSHGW_LISTEN": "127.0.0.1:0", "PUSHGW_BEARER_TOKENS": ServiceTestbed.bearer]
        environment["PUSHGW_REDIS_URL"] = redisURL
        var configuration = try ConfigurationLoader(environment: environment).load()
        XCTAssertEqual(try configuration.startMode(demoRequested: false), .demo, "nothing provider-related: the demo",
                       file: file, line: line)
        providers = try DemoProviders()
        providers.configure(&configuration)
        if let feedbackURL {
            for index in configuration.apps.indices {
                configuration.apps[index].feedback = GatewayConfiguration.FeedbackSettings(url: feedbackURL, secret: Array("demo-feedback".utf8))
            }
        }
        do {
            gateway = try Gateway(configuration: configuration, logger: Logger(minimumLevel: .error))
        } catch {
            providers.stop()
            throw error
        }
    }

    var baseURL: String { "http://127.0.0.1:\(gateway.server.port)" }

    /// `GET /metrics` over HTTP, as Prometheus scrapes it.
    func scrape() async throws -> [UInt8] {
        let answer = try await ServiceTestbed.call(baseURL, "GET", "/metrics", bearer: nil)
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.contentType, "text/plain; version=0.0.4; charset=utf-8")
        return answer.body
    }

    /// A demo gateway with everything its metrics can show: the async queue
    /// and dedup store on a real `redis-server` and a feedback receiver that
    /// accepts every delivery, both kept until `test` ends.
    static func withQueue(_ test: XCTestCase, file: StaticString = #filePath, line: UInt = #line) throws -> DemoModeGateway {
        let redis = try test.makeRedis(RedisTestServer.Options())
        let receiver = try FeedbackReceiver(statuses: [200])
        test.addTeardownBlock { receiver.stop() }
        return try DemoModeGateway(redisURL: redis.url, feedbackURL: "http://127.0.0.1:\(receiver.port)/feedback", file: file, line: line)
    }

    /// Sends an event in async mode (`202`) to an APNs device the simulator
    /// calls unregistered, so that the event also has feedback to deliver.
    func notifyAsyncWithFeedback(id: String, token: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        providers.apns.always(token: token, .unregistered(timestampMilliseconds: 1_767_225_600_000))
        let answer = try await ServiceTestbed.call(baseURL, "POST", "/v1/notify?mode=async",
                                                   body: ServiceTestbed.event(id: id, tokens: [token]))
        XCTAssertEqual(answer.status, 202, String(decoding: answer.body, as: UTF8.self), file: file, line: line)
    }

    /// Waits until a scrape has every one of `series` (samples as
    /// `ExpositionSamples` names them), the counters above zero.
    func waitForSeries(_ series: [String], within limit: Duration = .seconds(30)) async throws {
        try await waitUntil("the scrape has \(series)", within: limit) {
            let samples = ExpositionSamples.parse(try await scrape())
            return series.allSatisfy { name in samples[name].map { $0 > 0 || !name.contains("_total{") } ?? false }
        }
    }

    /// The series an async event leaves once it is sent and its feedback delivered.
    static let asyncSeries = [
        #"pushgw_queue_length{app="demo"}"#, #"pushgw_queue_pending{app="demo"}"#, #"pushgw_queue_oldest_age_seconds{app="demo"}"#,
        #"pushgw_queue_events_total{outcome="done"}"#, #"pushgw_feedback_total{result="delivered"}"#,
    ]

    func stop() async {
        await gateway.shutdown(drain: .seconds(2))
        providers.stop()
    }
}
