import Foundation
import GatewayService
import PushGWDemo
import XCTest

/// The gateway as `pushgw serve` starts it in demo mode: a configuration
/// with nothing provider-related, pointed at the built-in simulators by
/// `DemoProviders.configure`, on a free loopback port with the testbed's
/// bearer token.
final class DemoModeGateway {
    let providers: DemoProviders
    let gateway: Gateway

    init(file: StaticString = #filePath, line: UInt = #line) throws {
        var configuration = try ConfigurationLoader(environment: ["PUSHGW_LISTEN": "127.0.0.1:0",
                                                                  "PUSHGW_BEARER_TOKENS": ServiceTestbed.bearer]).load()
        XCTAssertEqual(try configuration.startMode(demoRequested: false), .demo, "nothing provider-related: the demo",
                       file: file, line: line)
        providers = try DemoProviders()
        providers.configure(&configuration)
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

    func stop() async {
        await gateway.shutdown(drain: .seconds(2))
        providers.stop()
    }
}
