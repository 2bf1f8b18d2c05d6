import APNsSimulator
import Foundation
import GatewayService
@testable import GatewayHTTP
import PayloadBuilder
import XCTest
import TestSupport

/// The fault matrix: for each provider or avatar fault, a batch of events
/// (one APNs and one FCM device each) through the real dispatcher, real
/// HTTP/2 clients and the strict simulators, proving that
/// - every recipient got exactly one final outcome,
/// - nothing a provider accepted was reported failed, and everything
///   reported sent was accepted,
/// - the process still serves (`/healthz`, and a clean event afterwards),
/// - memory stays bounded.
final class FaultMatrixTests: XCTestCase {
    private static let events = 600

    // MARK: provider faults

    func testGoAwayEveryFewHundredStreams() async throws {
        let testbed = try Self.testbed()
        testbed.simulator.setFaults(APNsSimulatorFaults(goAwayAfterStreams: 150))
        testbed.fcmSimulator.setFaults(APNsSimulatorFaults(goAwayAfterStreams: 200))
        try await run(testbed, label: "goaway")
        XCTAssertGreaterThan(testbed.simulator.statistics.goAwaysSent, 0)
    }

    func testConnectionsDroppedMidStream() async throws {
        let testbed = try Self.testbed()
        testbed.simulator.setFaults(APNsSimulatorFaults(dropConnectionAfterStreams: 170))
        testbed.fcmSimulator.setFaults(APNsSimulatorFaults(dropConnectionAfterStreams: 230))
        try await run(testbed, label: "drop")
        XCTAssertGreaterThan(testbed.simulator.statistics.connectionsDropped, 0)
    }

    func testBurstsOf503() async throws {
        let testbed = try Self.testbed()
        for index in stride(from: 0, to: Self.events, by: 3) {
            testbed.simulator.script(token: ServiceTestbed.token(index), responses: [.serviceUnavailable, .serviceUnavailable],
                                     thereafter: .success)
            testbed.fcmSimulator.script(token: Self.fcmToken(index), responses: [.unavailable(), .unavailable()], thereafter: .success)
        }
        let outcomes = try await run(testbed, label: "503")
        XCTAssertGreaterThan(outcomes["sent"] ?? 0, Self.events, "bursts are ridden out by retries")
    }

    func testQuotaExceededWithRetryAfter() async throws {
        let testbed = try Self.testbed()
        for index in stride(from: 0, to: Self.events, by: 10) {
            testbed.fcmSimulator.script(token: Self.fcmToken(index), responses: [.quotaExceeded(retryAfter: 1)], thereafter: .success)
            testbed.simulator.script(token: ServiceTestbed.token(index), responses: [.tooManyRequests], thereafter: .success)
        }
        let outcomes = try await run(testbed, label: "429")
        XCTAssertEqual(outcomes["failed"] ?? 0, 0, "every 429 succeeded after its Retry-After")
    }

    func testAProviderThatStalls() async throws {
        var settings = Self.settings()
        settings.requestDeadline = .seconds(3)
        let testbed = try ServiceTestbed(settings: settings, providerTimeout: .milliseconds(400))
        testbed.simulator.setFaults(APNsSimulatorFaults(silent: true))
        let outcomes = try await run(testbed, label: "stall", events: 40)
        XCTAssertEqual(outcomes["failed"], 40, "every stalled APNs send ends failed (retryable) within the deadline")
        XCTAssertEqual(outcomes["sent"], 40, "the other provider is unaffected")
        testbed.simulator.setFaults(.none)
    }

    func testAStreamLimitThatDropsToOne() async throws {
        let testbed = try Self.testbed()
        let dispatcher = testbed.dispatcher
        async let firstHalf = Self.send(dispatcher, range: 0..<(Self.events / 2))
        try await waitUntil("the first half is being sent") {
            testbed.providerRequestsInFlight("apns") > 0 || testbed.simulator.statistics.acceptedTotal > 0
        }
        testbed.simulator.setMaxConcurrentStreams(1)
        testbed.fcmSimulator.setMaxConcurrentStreams(1)
        let secondHalf = await Self.send(dispatcher, range: (Self.events / 2)..<Self.events)
        let answers = await firstHalf + secondHalf
        try await verify(answers, testbed: testbed, label: "limit-1")
    }

    func testTheOAuthEndpointDownThenBack() async throws {
        let testbed = try Self.testbed()
        testbed.fcmSimulator.setTokenEndpointDown(true)
        let down = await Self.send(testbed.dispatcher, range: 0..<50)
        let fcmDown = down.map { $0.results[1]["status"] }
        XCTAssertTrue(fcmDown.allSatisfy { $0 == .string("failed") }, "no access token: FCM sends fail, retryably")
        XCTAssertTrue(down.allSatisfy { $0.results[1]["retryable"] == .bool(true) })
        XCTAssertTrue(down.allSatisfy { $0.results[0]["status"] == .string("sent") }, "APNs is unaffected")
        testbed.fcmSimulator.setTokenEndpointDown(false)
        // After the failed grants no new one is tried for a while (1 s, 2 s, …).
        try await waitUntil("the hold-off on grants ends", within: .seconds(70), every: .milliseconds(50)) {
            !testbed.accessTokens.isHoldingOffGrants
        }
        let back = await Self.send(testbed.dispatcher, range: 50..<Self.events)
        try await verify(down + back, testbed: testbed, label: "oauth")
        XCTAssertTrue(back.allSatisfy { $0.results[1]["status"] == .string("sent") }, "once the endpoint is back, FCM delivers")
    }

    // MARK: avatar faults

    func testHostileAvatarsNeverStopANotification() async throws {
        let server = try AvatarTestServer(paths: [
            "/slow.png": .delayed(.seconds(5), .body(status: 200, contentType: "image/png", bytes: AvatarFixtures.png)),
            "/huge.png": .stream(contentType: "image/png", chunk: AvatarFixtures.png, total: 64 << 20, declareLength: false),
            "/page.png": .body(status: 200, contentType: "image/png", bytes: AvatarFixtures.html),
            "/hop.png": .redirect(status: 302, location: "http://169.254.169.254/latest/meta-data"),
        ])
        defer { server.stop() }
        var policy = AvatarPolicy(allowHTTP: true, allowPrivateAddresses: false)
        policy.privateAddressExceptions = [AvatarAddressRange("127.0.0.1/32")!]
        policy.totalTimeout = .milliseconds(500)
        let testbed = try ServiceTestbed(settings: Self.settings(), avatars: AvatarResolver(policy: policy))
        let cases = ["/slow.png": "timeout", "/huge.png": "too_large", "/page.png": "not_an_image", "/hop.png": "private_address"]
        for (path, reason) in cases.sorted(by: { $0.key < $1.key }) {
            let body = ServiceTestbed.event(id: "avatar\(path)", tokens: [ServiceTestbed.token(path.count)],
                                            avatarURL: server.url(path))
            let render = try JSONParser.parse(try await testbed.call("POST", "/v1/render", body: body).body)
            XCTAssertEqual(render["avatar"]?["state"], .string("dropped"), path)
            XCTAssertEqual(render["avatar"]?["reason"], .string(reason), path)
            let answer = try await testbed.call("POST", "/v1/notify", body: body)
            XCTAssertEqual(answer.status, 200, "\(path): a bad avatar never stops the notification")
        }
        let health = try await testbed.call("GET", "/healthz")
        XCTAssertEqual(health.status, 200)
    }

    // MARK: harness

    private static func settings() -> Dispatcher.Settings {
        var settings = Dispatcher.Settings()
        settings.retry.initialDelay = .milliseconds(5)
        settings.retry.maximumDelay = .milliseconds(200)
        settings.retry.maximumAttempts = 5
        return settings
    }

    private static func testbed() throws -> ServiceTestbed {
        try ServiceTestbed(settings: settings())
    }

    static func fcmToken(_ index: Int) -> String { "fault-matrix-fcm-\(index)" }

    struct Answer: Sendable {
        let index: Int
        let results: [JSONValue]
    }

    /// Events `range` through the dispatcher, 32 at a time.
    static func send(_ dispatcher: Dispatcher, range: Range<Int>) async -> [Answer] {
        await withTaskGroup(of: Answer.self) { group in
            var answers: [Answer] = []
            var next = range.lowerBound
            func submit(_ index: Int) {
                group.addTask {
                    let body = ServiceTestbed.event(id: "fault-\(index)", tokens: [ServiceTestbed.token(index)],
                                                    fcmTokens: [fcmToken(index)])
                    let response = await dispatcher.notify(body: body)
                    guard case let .array(results)? = (try? JSONParser.parse(response.body))?["results"] else {
                        return Answer(index: index, results: [])
                    }
                    return Answer(index: index, results: results)
                }
            }
            while next < range.upperBound, next - range.lowerBound < 32 {
                submit(next)
                next += 1
            }
            for await answer in group {
                answers.append(answer)
                if next < range.upperBound {
                    submit(next)
                    next += 1
                }
            }
            return answers.sorted { $0.index < $1.index }
        }
    }

    @discardableResult
    private func run(_ testbed: ServiceTestbed, label: String, events: Int = FaultMatrixTests.events) async throws -> [String: Int] {
        let before = Self.residentMegabytes()
        let answers = await Self.send(testbed.dispatcher, range: 0..<events)
        let counts = try await verify(answers, testbed: testbed, label: label)
        let after = Self.residentMegabytes()
        XCTAssertLessThan(after - before, 64, "\(label): memory grew by \(after - before) MB over \(events) events")
        return counts
    }

    /// The matrix's promises, checked against what the simulators saw.
    @discardableResult
    private func verify(_ answers: [Answer], testbed: ServiceTestbed, label: String) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        let apnsAccepted = testbed.simulator.statistics.acceptedPerToken
        let fcmAccepted = testbed.fcmSimulator.statistics.acceptedPerToken
        for answer in answers {
            XCTAssertEqual(answer.results.count, 2, "\(label) event \(answer.index): one outcome per recipient")
            for result in answer.results {
                guard case let .string(status)? = result["status"], case let .string(token)? = result["token"],
                      case let .string(platform)? = result["platform"] else {
                    XCTFail("\(label): malformed result \(result)")
                    continue
                }
                counts[status, default: 0] += 1
                let accepted = (platform == "apns" ? apnsAccepted[token] : fcmAccepted[token]) ?? 0
                switch status {
                case "sent":
                    XCTAssertGreaterThan(accepted, 0, "\(label): \(platform) \(token) reported sent but never accepted")
                case "failed":
                    XCTAssertEqual(accepted, 0, "\(label): \(platform) \(token) was accepted but reported failed")
                    XCTAssertNotNil(result["retryable"], "\(label): a failure says whether to retry")
                default:
                    XCTFail("\(label): unexpected status \(status)")
                }
            }
        }
        // The process still serves, and a clean event still goes through.
        testbed.simulator.setFaults(.none)
        testbed.fcmSimulator.setFaults(.none)
        let health = try await testbed.call("GET", "/healthz")
        XCTAssertEqual(health.status, 200, "\(label): the process still serves")
        let clean = try await testbed.call("POST", "/v1/notify",
                                           body: ServiceTestbed.event(id: "after-\(label)", tokens: [ServiceTestbed.token(99_999)],
                                                                      fcmTokens: ["after-\(label)"]))
        XCTAssertEqual(clean.status, 200, "\(label): \(String(decoding: clean.body, as: UTF8.self))")
        return counts
    }

    private static func residentMegabytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes / 1024
    }
}
