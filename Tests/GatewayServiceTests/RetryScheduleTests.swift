import APNsHTTP2
@testable import HTTP2Client
@testable import GatewayService
@testable import PayloadBuilder
import XCTest

/// Each retryable request of an event keeps its own schedule: its own
/// attempt number and due time, refused alone when its next attempt would
/// pass the attempt limit or the deadline.
final class RetryScheduleTests: XCTestCase {
    private let start = ContinuousClock.now

    private func retry(_ index: Int, after: Duration? = nil) -> Dispatcher.Retry {
        let token = String(repeating: "0", count: 63) + String(index)
        let request = ProviderRequest(platform: .apns, recipientIndex: index, token: token, origin: "https://127.0.0.1",
                                      path: "/3/device/\(token)", headers: [], body: [])
        return (request, RecipientResult(platform: .apns, token: token, status: .failed, reason: "ServiceUnavailable",
                                         retryable: true), after, true)
    }

    private func policy() -> RetryPolicy {
        var policy = RetryPolicy()
        policy.initialDelay = .seconds(1)
        policy.maximumAttempts = 3
        return policy
    }

    func testALongRetryAfterPastTheDeadlineRefusesThatRequestAlone() {
        var schedule = RetrySchedule(policy: policy(), deadline: start + .seconds(30))
        let refused = schedule.add([retry(0), retry(1, after: .seconds(60)), retry(2)], attempt: 2, now: start, jitter: 1)
        XCTAssertEqual(refused.map(\.request.recipientIndex), [1])
        XCTAssertEqual(schedule.waiting.map(\.retry.request.recipientIndex), [0, 2])
        XCTAssertEqual(schedule.nextDue, start + .seconds(1))
    }

    func testEachRequestIsDueOnItsOwnAndTakenWhenDue() {
        var schedule = RetrySchedule(policy: policy(), deadline: start + .seconds(30))
        XCTAssertTrue(schedule.add([retry(0), retry(1, after: .seconds(5))], attempt: 2, now: start, jitter: 1).isEmpty)
        XCTAssertEqual(schedule.takeDue(now: start + .milliseconds(500)).count, 0, "nothing due yet")
        XCTAssertEqual(schedule.takeDue(now: start + .seconds(1)).map(\.retry.request.recipientIndex), [0])
        XCTAssertEqual(schedule.nextDue, start + .milliseconds(5500), "Retry-After and the most jitter above it, a tenth")
        XCTAssertEqual(schedule.takeDue(now: start + .milliseconds(5400)).count, 0)
        let later = schedule.takeDue(now: start + .milliseconds(5500))
        XCTAssertEqual(later.map(\.retry.request.recipientIndex), [1])
        XCTAssertEqual(later.map(\.attempt), [2])
        XCTAssertNil(schedule.nextDue)
    }

    func testRequestsDueWithinTheGroupingWindowGoTogether() {
        var schedule = RetrySchedule(policy: policy(), deadline: start + .seconds(30))
        _ = schedule.add([retry(0)], attempt: 2, now: start, jitter: 1)
        _ = schedule.add([retry(1)], attempt: 2, now: start + .milliseconds(10), jitter: 1)
        XCTAssertEqual(schedule.takeDue(now: start + .seconds(1)).map(\.retry.request.recipientIndex), [0, 1])
    }

    /// Grouping never sends a request before the Retry-After its provider gave.
    func testARetryAfterIsNeverCutShortByGrouping() {
        var schedule = RetrySchedule(policy: policy(), deadline: start + .seconds(30))
        _ = schedule.add([retry(0, after: .milliseconds(1010))], attempt: 2, now: start, jitter: 0)
        _ = schedule.add([retry(1)], attempt: 2, now: start, jitter: 1)
        XCTAssertEqual(schedule.takeDue(now: start + .seconds(1)).map(\.retry.request.recipientIndex), [1])
        XCTAssertEqual(schedule.takeDue(now: start + .milliseconds(1010)).map(\.retry.request.recipientIndex), [0])
    }

    func testTheAttemptLimitAndTheDeadlineEndRetries() {
        var schedule = RetrySchedule(policy: policy(), deadline: start + .seconds(3))
        XCTAssertEqual(schedule.add([retry(0)], attempt: 4, now: start, jitter: 1).count, 1, "past the attempt limit")
        // Attempt 3 waits 2 s (1 s doubled): due at 2.5 s, inside; at 1.5 s in, due at 3.5 s, past the deadline;
        // at 0.95 s in, due at 2.95 s, too close to it to be worth an attempt.
        XCTAssertTrue(schedule.add([retry(1)], attempt: 3, now: start + .milliseconds(500), jitter: 1).isEmpty)
        XCTAssertEqual(schedule.add([retry(2)], attempt: 3, now: start + .milliseconds(1500), jitter: 1).count, 1)
        XCTAssertEqual(schedule.add([retry(3)], attempt: 3, now: start + .milliseconds(950), jitter: 1).count, 1)
        XCTAssertFalse(schedule.leavesTimeForAnAttempt(at: start + .milliseconds(2950)))
        XCTAssertTrue(schedule.leavesTimeForAnAttempt(at: start + .milliseconds(2850)))
    }

    /// PROTOCOLS.md: FCM UNAVAILABLE backs off 1 s, 2 s, 4 s … with jitter;
    /// a failed connection is retried sooner, on a fresh one.
    func testAProviderRefusalBacksOffFromOneSecondAndAConnectionFailureFromATenth() {
        let policy = RetryPolicy()
        XCTAssertEqual((2...4).map { policy.delay(beforeAttempt: $0, retryAfter: nil, providerRefused: true, jitter: 1) },
                       [.seconds(1), .seconds(2), .seconds(4)])
        XCTAssertEqual(policy.delay(beforeAttempt: 2, retryAfter: nil, providerRefused: true, jitter: 0), .milliseconds(500))
        XCTAssertEqual(policy.delay(beforeAttempt: 2, retryAfter: nil, providerRefused: false, jitter: 1), .milliseconds(100))
        XCTAssertEqual(policy.delay(beforeAttempt: 2, retryAfter: .seconds(3), providerRefused: true, jitter: 0), .seconds(3))
    }

    /// PROTOCOLS.md: honour Retry-After, with jitter: never sooner, and
    /// spread over a tenth more, so that the devices one answer delayed do
    /// not all come back at once.
    func testARetryAfterIsHonouredAndSpreadOverATenthMore() {
        let policy = RetryPolicy()
        let delays = [0, 0.5, 1].map { policy.delay(beforeAttempt: 2, retryAfter: .seconds(10), jitter: $0) }
        XCTAssertEqual(delays, [.seconds(10), .seconds(10.5), .seconds(11)])
        XCTAssertEqual(policy.delay(beforeAttempt: 4, retryAfter: .milliseconds(100), jitter: 1), .seconds(4),
                       "a short Retry-After does not cut the back-off short")
    }
}
