import Foundation
@testable import GatewayService
import PushGWDemo
import XCTest
import TestSupport

/// docs/openapi.yaml against the gateway: a valid OpenAPI 3.1 document
/// whose paths and methods are exactly `Route.table`'s, and schemathesis
/// (from the virtual environment `scripts/install-deps` fills) run with
/// every check against a demo gateway: every answer conforms, none is a
/// 5xx, and the gateway still serves afterwards.
final class OpenAPIContractTests: XCTestCase {
    static let checkout = ProjectPythonTools.checkout
    static let document = checkout.appendingPathComponent("docs/openapi.yaml").path
    static let script = checkout.appendingPathComponent("scripts/openapi-check.py").path

    static var python: String { ProjectPythonTools.python }

    /// Fails (never skips), naming the remedy, when the Python tools are not installed.
    func requireTools() throws {
        try ProjectPythonTools.require("schemathesis is")
    }

    func testTheDocumentIsOpenAPI31AndNamesExactlyTheRoutes() throws {
        try requireTools()
        let run = try Self.run([Self.python, Self.script, "routes", Self.document])
        XCTAssertEqual(run.status, 0, run.output)
        guard run.status == 0 else { return }
        let listed = try JSONDecoder().decode([String: [String]].self, from: Data(run.output.utf8))
        var served: [String: [String]] = [:]
        for route in Route.table {
            served[route.path] = switch route.methods {
            case .post: ["POST"]
            case .read: ["GET", "HEAD"]
            }
        }
        XCTAssertEqual(listed, served, "docs/openapi.yaml's paths and methods against Route.table")
    }

    /// A document that breaks OpenAPI 3.1 is refused by the same check.
    func testABrokenDocumentIsRefused() throws {
        try requireTools()
        let text = try String(contentsOfFile: Self.document, encoding: .utf8)
        let broken = NSTemporaryDirectory() + "pushgw-openapi-broken-\(UUID().uuidString).yaml"
        defer { try? FileManager.default.removeItem(atPath: broken) }
        try text.replacingOccurrences(of: "openapi: 3.1.0", with: "openapi: 3.1.0\nnot_a_field: 1")
            .write(toFile: broken, atomically: true, encoding: .utf8)
        let run = try Self.run([Self.python, Self.script, "routes", broken])
        XCTAssertNotEqual(run.status, 0, run.output)
    }

    func testSchemathesisFindsNothingAgainstADemoGateway() async throws {
        try requireTools()
        let token = "openapi-contract-token-0123456789"
        let providers = try DemoProviders()
        defer { providers.stop() }
        var configuration = try ConfigurationLoader(environment: ["PUSHGW_LISTEN": "127.0.0.1:0", "PUSHGW_BEARER_TOKENS": token]).load()
        providers.configure(&configuration)
        let gateway = try Gateway(configuration: configuration, logger: Logger(minimumLevel: .error))
        let base = "http://127.0.0.1:\(gateway.server.port)"
        let arguments = [Self.python, Self.script, "run", Self.document, "--url", base, "--token", token]
            + configuration.apps.flatMap { ["--app", $0.name] } + ["--max-examples", "25", "--seed", "20261206", "--max-time", "75"]
        // Off the cooperative pool: the gateway answers on its own loops meanwhile.
        let run = try await Task.detached { try OpenAPIContractTests.run(arguments) }.value
        let health = try await ServiceTestbed.call(base, "GET", "/healthz", bearer: nil)
        let notify = try await ServiceTestbed.call(base, "POST", "/v1/notify", body: ServiceTestbed.seedEvent(), bearer: token)
        await gateway.shutdown(drain: .seconds(2))
        XCTAssertEqual(run.status, 0, "schemathesis found problems:\n" + run.output)
        XCTAssertTrue(run.output.contains("Coverage") && run.output.contains("Fuzzing"), run.output)
        XCTAssertEqual(health.status, 200, "the gateway still serves after the run")
        XCTAssertEqual(notify.status, 200, String(decoding: notify.body, as: UTF8.self))
    }

    /// Runs `arguments` to its end; its exit status and its output (standard
    /// output and error together).
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.currentDirectoryURL = checkout
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
