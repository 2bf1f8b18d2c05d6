import DurableQueue
import Foundation
import GatewayService
import PayloadBuilder
import PushGWDemo
import RedisClient
import TestSupport
import XCTest

/// `Gateway` given a queue: two replicas on one `redis-server` and one set
/// of simulators take async events on either and consume them together.
final class AsyncGatewayTests: XCTestCase {
    func testTwoReplicasShareTheQueueAndSendEveryEventOnce() async throws {
        let server = try makeRedis()
        let providers = try DemoProviders()
        defer { providers.stop() }
        let configuration = try providers.gatewayConfiguration()
        let gateways = try ["replica-a", "replica-b"].map { name in
            try Gateway(configuration: configuration, logger: Logger(minimumLevel: .error), queue: try makeQueue(server),
                        consumerName: name)
        }
        let urls = gateways.map { "http://127.0.0.1:\($0.server.port)" }
        let count = 20
        for index in 0..<count {
            let answer = try await ServiceTestbed.call(urls[index % 2], "POST", "/v1/notify?mode=async",
                                                       body: ServiceTestbed.event(id: "e-\(index)", tokens: [ServiceTestbed.token(index + 1)]))
            XCTAssertEqual(answer.status, 202, String(decoding: answer.body, as: UTF8.self))
        }
        try await waitUntil("every event is done", within: .seconds(30)) {
            for index in 0..<count {
                let status = try await ServiceTestbed.call(urls[(index + 1) % 2], "GET", "/v1/events/e-\(index)")
                guard status.status == 200, try JSONParser.parse(status.body)["status"] == .string("done") else { return false }
            }
            return true
        }
        for gateway in gateways { await gateway.shutdown(drain: .seconds(2)) }
        // One device per event: more than `count` would be an event sent twice.
        XCTAssertEqual(providers.apns.statistics.acceptedTotal, count)
    }
}
