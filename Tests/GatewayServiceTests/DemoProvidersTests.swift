import Foundation
import PushGWDemo
import GatewayService
@testable import GatewayHTTP
import PayloadBuilder
import XCTest

/// The providers `pushgw simulators` runs on their own: a gateway given only
/// the environment they print is configured as for real providers and
/// delivers through both.
final class DemoProvidersTests: XCTestCase {
    func testAGatewayConfiguredFromThePrintedEnvironmentDeliversThroughBothSimulators() async throws {
        let providers = try DemoProviders()
        defer { providers.stop() }
        let configuration = try providers.gatewayConfiguration()
        XCTAssertEqual(try configuration.startMode(demoRequested: false), .providers, "real-provider settings, no built-in simulators")
        let gateway = try Gateway(configuration: configuration, logger: Logger(minimumLevel: .error))
        let answer = try await ServiceTestbed.call("http://127.0.0.1:\(gateway.server.port)", "POST", "/v1/notify",
                                                   body: ServiceTestbed.seedEvent(), bearer: ServiceTestbed.bearer)
        let metrics = gateway.metrics.registry.exposition()
        await gateway.shutdown(drain: .seconds(2))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        for provider in ["apns", "fcm"] {
            XCTAssertTrue(metrics.contains(#"pushgw_provider_request_duration_seconds_count{provider="\#(provider)"} 1"#), metrics)
        }
        guard case let .array(results)? = try JSONParser.parse(answer.body)["results"] else { return XCTFail("no results") }
        XCTAssertEqual(results.map { $0["status"] }, [.string("sent"), .string("sent")])
        XCTAssertEqual(providers.apns.statistics.acceptedTotal, 1)
        XCTAssertEqual(providers.fcm.statistics.acceptedTotal, 1)
    }

    func testTheDemoSendsTheSeedEventWithABrowserToAllThreeSimulators() async throws {
        let demo = try DemoModeGateway()
        defer { demo.providers.stop() }
        let path = try XCTUnwrap(demo.providers.writeEventWithBrowser(try ServiceTestbed.seedEvent()))
        let event = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let answer = try await ServiceTestbed.call(demo.baseURL, "POST", "/v1/notify", body: event, bearer: ServiceTestbed.bearer)
        await demo.gateway.shutdown(drain: .seconds(2))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        guard case let .array(results)? = try JSONParser.parse(answer.body)["results"] else { return XCTFail("no results") }
        XCTAssertEqual(results.map { $0["platform"] }, [.string("fcm"), .string("apns"), .string("webpush")])
        XCTAssertEqual(results.map { $0["status"] }, [.string("sent"), .string("sent"), .string("sent")])
        XCTAssertEqual(demo.providers.webPush.statistics.acceptedTotal, 1)
    }

    /// What a second signal does before the process ends at once: the
    /// throwaway keys go; the simulators are left to die with the process.
    func testRemovingTheFolderDeletesTheThrowawayKeysAndMayBeRepeated() throws {
        // Told of the folder before any key is in it (a stop at once while
        // starting removes it by this path).
        var announced: (path: String, existed: Bool, files: [String])?
        let providers = try DemoProviders(folderCreated: { path in
            announced = (path, FileManager.default.fileExists(atPath: path),
                         (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? ["unreadable"])
        })
        defer { providers.stop() }
        XCTAssertEqual(announced?.path, providers.folder)
        XCTAssertEqual(announced?.existed, true)
        XCTAssertEqual(announced?.files, [])
        for file in [providers.keyFile, providers.serviceAccountFile, providers.tokensFile, providers.vapidKeyFile] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: file), file)
        }
        DemoProviders.removeFolder(at: providers.folder)
        XCTAssertFalse(FileManager.default.fileExists(atPath: providers.folder))
        DemoProviders.removeFolder(at: providers.folder)
        providers.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: providers.folder))
    }
}
