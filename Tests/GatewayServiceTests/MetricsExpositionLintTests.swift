import APNsSimulator
import Foundation
import GatewayService
import PayloadBuilder
import XCTest

/// `/metrics` as Prometheus scrapes it, judged by `promtool check metrics`
/// (the linter of Prometheus' own tooling), of a gateway with the async
/// queue and dedup store on a real `redis-server`: before any traffic,
/// several times while a bounded load of notifications and renders runs,
/// some of them failing so that the error series exist, and after it and
/// an async event.
final class MetricsExpositionLintTests: XCTestCase {
    /// One request of the load (or a scrape among them).
    enum LoadStep: Sendable {
        case delivered(Int), invalidToken(Int), retried(Int), failedForGood(Int), credentialsRefused(Int), sentTwice(Int)
        case avatarDropped(Int), invalidEvent, unauthorized, render, invalidRender, unknownPath, scrape
    }

    static let rounds = 12
    static let workers = 8

    /// Each round: every kind of outcome, and one scrape among them.
    static var steps: [LoadStep] {
        (0..<rounds).flatMap { round -> [LoadStep] in
            (0..<6).map { LoadStep.delivered(round * 6 + $0) } + [
                .invalidToken(round), .retried(round), .failedForGood(round), .credentialsRefused(round), .sentTwice(round),
                .avatarDropped(round), .invalidEvent, .unauthorized, .render, .render, .invalidRender, .unknownPath, .scrape,
            ]
        }
    }

    // The APNs tokens of each kind of step, apart from one another.
    static func apnsToken(_ step: LoadStep) -> String? {
        switch step {
        case let .delivered(index): ServiceTestbed.token(index)
        case let .invalidToken(index): ServiceTestbed.token(0x10000 + index)
        case let .retried(index): ServiceTestbed.token(0x20000 + index)
        case let .failedForGood(index): ServiceTestbed.token(0x30000 + index)
        case let .credentialsRefused(index): ServiceTestbed.token(0x40000 + index)
        case let .sentTwice(index): ServiceTestbed.token(0x50000 + index)
        case let .avatarDropped(index): ServiceTestbed.token(0x60000 + index)
        default: nil
        }
    }

    func testTheExpositionPassesPromtoolBeforeDuringAndAfterALoadWithFailures() async throws {
        let promtool = try Promtool()
        let demo = try DemoModeGateway.withQueue(self)
        let steps = Self.steps
        for step in steps {
            guard let token = Self.apnsToken(step) else { continue }
            switch step {
            case let .invalidToken(index):
                demo.providers.apns.always(token: token, .unregistered(timestampMilliseconds: 1_767_225_600_000))
                demo.providers.fcm.always(token: "fcm-gone-\(index)", .unregistered)
            case let .retried(index):
                demo.providers.apns.script(token: token, responses: [.serviceUnavailable], thereafter: .success)
                demo.providers.fcm.script(token: "fcm-busy-\(index)", responses: [.internalError], thereafter: .success)
            case .failedForGood:
                demo.providers.apns.always(token: token, APNsSimulatorResponse(status: 400, reason: "BadCollapseId"))
            case .credentialsRefused:
                demo.providers.apns.always(token: token, .forbidden)
            default:
                break
            }
        }

        var scrapes = [try await demo.scrape()]
        let baseURL = demo.baseURL
        scrapes += try await withThrowingTaskGroup(of: [[UInt8]].self) { group in
            for worker in 0..<Self.workers {
                group.addTask {
                    var scrapes: [[UInt8]] = []
                    for (index, step) in steps.enumerated() where index % Self.workers == worker {
                        if let scrape = try await Self.perform(step, at: baseURL) { scrapes.append(scrape) }
                    }
                    return scrapes
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        try await demo.notifyAsyncWithFeedback(id: "queued-1", token: ServiceTestbed.token(0x70000))
        try await demo.waitForSeries(DemoModeGateway.asyncSeries)
        let last = try await demo.scrape()
        scrapes.append(last)
        await demo.stop()

        XCTAssertEqual(scrapes.count, Self.rounds + 2)
        for (index, scrape) in scrapes.enumerated() {
            if let problems = try promtool.lintMetrics(scrape) {
                XCTFail("scrape \(index) of \(scrapes.count): \(problems)\n\(String(decoding: scrape, as: UTF8.self))")
            }
        }

        // The load reached every kind of series the exposition has, errors included.
        let samples = ExpositionSamples.parse(last)
        let atLeastOne = [
            #"pushgw_events_total{outcome="delivered"}"#, #"pushgw_events_total{outcome="invalid"}"#,
            #"pushgw_events_total{outcome="duplicate"}"#, #"pushgw_events_total{outcome="failed"}"#,
            #"pushgw_notifications_total{provider="apns",status="sent"}"#, #"pushgw_notifications_total{provider="fcm",status="sent"}"#,
            #"pushgw_notifications_total{provider="apns",status="invalid_token"}"#,
            #"pushgw_notifications_total{provider="fcm",status="invalid_token"}"#,
            #"pushgw_notifications_total{provider="apns",status="failed"}"#,
            #"pushgw_provider_retries_total{provider="apns"}"#, #"pushgw_provider_retries_total{provider="fcm"}"#,
            #"pushgw_rejected_tokens_total{provider="apns"}"#, #"pushgw_rejected_tokens_total{provider="fcm"}"#,
            #"pushgw_avatar_fetch_total{result="host_not_allowed"}"#,
            #"pushgw_http_requests_total{route="/v1/notify",code="400"}"#, #"pushgw_http_requests_total{route="/v1/notify",code="401"}"#,
            #"pushgw_http_requests_total{route="/v1/render",code="200"}"#, #"pushgw_http_requests_total{route="/v1/render",code="400"}"#,
            #"pushgw_http_requests_total{route="other",code="404"}"#,
            #"pushgw_provider_request_duration_seconds_count{provider="apns"}"#,
            #"pushgw_provider_request_duration_seconds_count{provider="fcm"}"#,
            #"pushgw_token_refresh_total{kind="apns_jwt"}"#, #"pushgw_token_refresh_total{kind="fcm_oauth"}"#,
        ] + DemoModeGateway.asyncSeries.filter { $0.contains("_total{") }
        for series in atLeastOne {
            XCTAssertGreaterThan(samples[series] ?? 0, 0, series)
        }
        for series in [#"pushgw_provider_known_bad{provider="apns"}"#, #"pushgw_provider_known_bad{provider="fcm"}"#, "pushgw_ready",
                       #"pushgw_provider_in_flight{provider="apns"}"#, #"pushgw_provider_in_flight{provider="fcm"}"#]
            + DemoModeGateway.asyncSeries.filter { !$0.contains("_total{") } {
            XCTAssertNotNil(samples[series], series)
        }
    }

    /// The linter is really consulted: a counter without `_total` and a
    /// metric without help are reported, not waved through.
    func testPromtoolReportsWhatItFinds() throws {
        let promtool = try Promtool()
        let problems = try promtool.lintMetrics(Array("# TYPE pushgw_sends counter\npushgw_sends 1\n".utf8))
        XCTAssertTrue(problems?.contains(#"counter metrics should have "_total" suffix"#) == true, problems ?? "no problem reported")
        XCTAssertTrue(problems?.contains("no help text") == true, problems ?? "no problem reported")
    }

    /// Performs one step; a scrape returns its body.
    static func perform(_ step: LoadStep, at baseURL: String) async throws -> [UInt8]? {
        func notify(_ body: [UInt8], bearer: String = ServiceTestbed.bearer) async throws -> Int {
            try await ServiceTestbed.call(baseURL, "POST", "/v1/notify", body: body, bearer: bearer).status
        }
        let token = apnsToken(step)
        func expect(_ status: Int, _ got: Int) {
            XCTAssertEqual(got, status, "\(step)")
        }
        switch step {
        case let .delivered(index):
            expect(200, try await notify(ServiceTestbed.event(id: "load-\(index)", tokens: [token!], fcmTokens: ["fcm-\(index)"])))
        case let .invalidToken(index):
            expect(200, try await notify(ServiceTestbed.event(id: "gone-\(index)", tokens: [token!], fcmTokens: ["fcm-gone-\(index)"])))
        case let .retried(index):
            expect(200, try await notify(ServiceTestbed.event(id: "busy-\(index)", tokens: [token!], fcmTokens: ["fcm-busy-\(index)"])))
        case let .failedForGood(index):
            expect(502, try await notify(ServiceTestbed.event(id: "final-\(index)", tokens: [token!])))
        case let .credentialsRefused(index):
            expect(502, try await notify(ServiceTestbed.event(id: "refused-\(index)", tokens: [token!])))
        case let .sentTwice(index):
            let event = ServiceTestbed.event(id: "twice-\(index)", tokens: [token!])
            expect(200, try await notify(event))
            expect(200, try await notify(event))
        case let .avatarDropped(index):
            let event = ServiceTestbed.event(id: "avatar-\(index)", tokens: [token!], avatarURL: "https://avatars.example.invalid/\(index).png")
            expect(200, try await notify(event))
        case .invalidEvent:
            expect(400, try await notify(Array(#"{"event_id":""}"#.utf8)))
        case .unauthorized:
            expect(401, try await notify(ServiceTestbed.event(tokens: [ServiceTestbed.token(1)]), bearer: "not-a-token"))
        case .render:
            let answer = try await ServiceTestbed.call(baseURL, "POST", "/v1/render", body: try ServiceTestbed.seedEvent())
            XCTAssertEqual(answer.status, 200)
        case .invalidRender:
            let answer = try await ServiceTestbed.call(baseURL, "POST", "/v1/render", body: Array("[]".utf8))
            XCTAssertEqual(answer.status, 400)
        case .unknownPath:
            expect(404, try await ServiceTestbed.call(baseURL, "GET", "/v2/notify", bearer: nil).status)
        case .scrape:
            let answer = try await ServiceTestbed.call(baseURL, "GET", "/metrics", bearer: nil)
            XCTAssertEqual(answer.status, 200)
            return answer.body
        }
        return nil
    }
}
