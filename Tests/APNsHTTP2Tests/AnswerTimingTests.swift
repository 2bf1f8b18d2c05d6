@testable import APNsHTTP2
@testable import HTTP2Client
import APNsSimulator
import Synchronization
import XCTest

/// `HTTP2ConnectionOptions.timesAnswer`: each answered request is timed
/// once, from `send` to its answer; a request that got no answer is not.
final class AnswerTimingTests: XCTestCase {
    private final class Times: Sendable {
        let list = Mutex<[Duration]>([])
        var values: [Duration] { list.withLock { $0 } }
    }

    func testEveryAnsweredRequestIsTimedOnceWithItsWaitForTheAnswer() async throws {
        let testbed = try APNsTestbed()
        testbed.simulator.setFaults(APNsSimulatorFaults(responseDelay: .milliseconds(150)))
        let times = Times()
        var options = HTTP2ConnectionOptions()
        options.timesAnswer = { time in times.list.withLock { $0.append(time) } }
        let client = try testbed.client(connections: 2, options: options)
        var requests = try testbed.requests(count: 6)
        requests[4].path = "/3/device/not-a-token"

        let outcomes = await client.send(requests)

        XCTAssertEqual(outcomes.filter { if case .success(.accepted) = $0 { true } else { false } }.count, 5)
        XCTAssertEqual(outcomes.filter { if case .success(.rejected) = $0 { true } else { false } }.count, 1,
                       "a rejection is an answer, timed like the others")
        XCTAssertEqual(times.values.count, 6, "\(times.values)")
        for time in times.values {
            XCTAssertGreaterThanOrEqual(time, .milliseconds(150), "the simulator held every answer 150 ms")
        }
    }

    func testARequestWithoutAnAnswerIsNotTimed() async throws {
        let testbed = try APNsTestbed()
        let times = Times()
        var options = HTTP2ConnectionOptions()
        options.timesAnswer = { time in times.list.withLock { $0.append(time) } }
        let client = try testbed.client(requestTimeout: .milliseconds(300), options: options)
        let requests = try testbed.requests(count: 3)
        _ = await client.send([requests[0]])
        XCTAssertEqual(times.values.count, 1)

        testbed.simulator.setFaults(APNsSimulatorFaults(silent: true))
        let outcomes = await client.send(Array(requests[1...]))

        for outcome in outcomes {
            guard case let .failure(error) = outcome else { return XCTFail("answered by a silent server: \(outcome)") }
            XCTAssertEqual(error.kind, .timeout)
        }
        XCTAssertEqual(times.values.count, 1, "timed-out requests are failures, not answers")
    }
}
