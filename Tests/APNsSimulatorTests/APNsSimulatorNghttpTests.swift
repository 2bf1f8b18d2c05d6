import APNsSimulator
import Foundation
import XCTest

/// Interop with a second HTTP/2 implementation: Debian's `nghttp` client
/// (package nghttp2-client). Skipped when the binary is not installed.
final class APNsSimulatorNghttpTests: XCTestCase {
    private func nghttpPath() throws -> String {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for directory in directories + ["/usr/bin", "/usr/local/bin"] {
            let candidate = "\(directory)/nghttp"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw XCTSkip("nghttp is not installed (apt-get install nghttp2-client)")
    }

    /// Runs `nghttp -v` for one POST and returns its verbose output.
    private func nghttp(_ executable: String, url: String, headers: [String], body: String) throws -> String {
        let bodyPath = NSTemporaryDirectory() + "sim-nghttp-\(UUID().uuidString).json"
        try body.write(toFile: bodyPath, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: bodyPath) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-v", "-t", "10", "-d", bodyPath] + headers.flatMap { ["-H", $0] } + [url]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    func testNghttpGets200WithItsApnsIDEchoed() throws {
        let executable = try nghttpPath()
        let fixture = try SimTestFixture()
        let apnsID = UUID().uuidString.lowercased()
        let output = try nghttp(
            executable,
            url: "\(fixture.simulator.url)/3/device/\(SimTestFixture.token)",
            headers: ["authorization: bearer \(fixture.currentJWT)", "apns-topic: \(SimTestFixture.topic)",
                      "apns-push-type: alert", "apns-id: \(apnsID)"],
            body: #"{"aps":{"alert":"hello from nghttp"}}"#
        )
        XCTAssertTrue(output.contains(":status: 200"), output)
        XCTAssertTrue(output.contains("apns-id: \(apnsID)"), output)
        XCTAssertEqual(fixture.simulator.statistics.acceptedIDs, [apnsID])
        XCTAssertEqual(String(decoding: fixture.simulator.statistics.notifications.first?.payload ?? [], as: UTF8.self),
                       #"{"aps":{"alert":"hello from nghttp"}}"#)
    }

    func testNghttpGetsBadDeviceTokenAndMissingProviderToken() throws {
        let executable = try nghttpPath()
        let fixture = try SimTestFixture()
        let badToken = try nghttp(
            executable,
            url: "\(fixture.simulator.url)/3/device/not-a-token",
            headers: ["authorization: bearer \(fixture.currentJWT)", "apns-topic: \(SimTestFixture.topic)"],
            body: #"{"aps":{}}"#
        )
        XCTAssertTrue(badToken.contains(":status: 400"), badToken)
        XCTAssertTrue(badToken.contains(#"{"reason":"BadDeviceToken"}"#), badToken)

        let noToken = try nghttp(
            executable,
            url: "\(fixture.simulator.url)/3/device/\(SimTestFixture.token)",
            headers: ["apns-topic: \(SimTestFixture.topic)"],
            body: #"{"aps":{}}"#
        )
        XCTAssertTrue(noToken.contains(":status: 403"), noToken)
        XCTAssertTrue(noToken.contains(#"{"reason":"MissingProviderToken"}"#), noToken)
    }
}
