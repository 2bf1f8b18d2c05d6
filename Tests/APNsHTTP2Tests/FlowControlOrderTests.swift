@testable import APNsHTTP2
@testable import HTTP2Client
import APNsSimulator
import XCTest

/// Requests whose bodies together exceed the server's connection
/// flow-control window (nghttp2's default 64 KiB, which APNs advertises
/// too) reach the server in the order they were sent: none is cut at the
/// window's edge and put behind the others.
final class FlowControlOrderTests: XCTestCase {
    func testBodiesBeyondTheConnectionWindowAreAnsweredInTheOrderSent() async throws {
        let testbed = try APNsTestbed()
        let client = try testbed.client(connections: 1)
        defer { client.shutdown() }
        let requests = try testbed.requests(count: 400, text: String(repeating: "flow control ", count: 40))
        let bodyBytes = requests.reduce(0) { $0 + $1.body.count }
        XCTAssertGreaterThan(bodyBytes, 4 * 65_535, "the bodies fill the window several times over")

        let outcomes = await client.send(requests)
        let sentIDs = outcomes.compactMap { outcome -> String? in
            if case let .success(.accepted(apnsID)) = outcome { return apnsID }
            return nil
        }
        XCTAssertEqual(sentIDs.count, requests.count, "every request is accepted")
        let answered = testbed.simulator.statistics.acceptedIDs
        XCTAssertEqual(answered.count, requests.count)
        let firstOutOfOrder = sentIDs.indices.first { $0 < answered.count && sentIDs[$0] != answered[$0] }
        XCTAssertNil(firstOutOfOrder, "the server answered in the order sent (first difference at \(firstOutOfOrder ?? -1))")
    }

    /// Requests beyond the window to a server that reads but never answers
    /// end once each, in a timeout; the connection then carries requests as
    /// before.
    func testRequestsBeyondTheWindowToASilentServerEachEndOnceInATimeout() async throws {
        let testbed = try APNsTestbed()
        let client = try testbed.client(connections: 1, requestTimeout: .milliseconds(400))
        defer { client.shutdown() }
        let requests = try testbed.requests(count: 400, text: String(repeating: "flow control ", count: 40))
        // One answer first: until then the server takes one stream at a time (PROTOCOLS.md A6).
        let warm = await client.send(Array(requests[..<1]))
        guard case .success(.accepted) = warm[0] else { return XCTFail("warm-up: \(warm)") }
        testbed.simulator.setFaults(APNsSimulatorFaults(silent: true))
        let outcomes = await client.send(requests)
        XCTAssertEqual(outcomes.count, requests.count)
        let kinds = outcomes.compactMap { outcome -> TransportError.Kind? in
            if case let .failure(error) = outcome { return error.kind }
            return nil
        }
        XCTAssertEqual(kinds.count, requests.count, "nothing is accepted by a silent server")
        XCTAssertEqual(Set(kinds), [.timeout])
        XCTAssertGreaterThan(testbed.simulator.statistics.unansweredStreams, 100, "many streams were open at once")

        testbed.simulator.setFaults(APNsSimulatorFaults())
        let later = await client.send(Array(requests[..<50]))
        let accepted = later.filter { if case .success(.accepted) = $0 { return true } else { return false } }
        XCTAssertEqual(accepted.count, 50, "the connection goes on: \(later.prefix(3))")
    }

    /// A server may widen the connection's window only once all of it is
    /// used (RFC 9113 leaves when to the receiver): bodies held back until
    /// the window has room for them whole would wait for ever. They go cut
    /// at the window's edge after a while, and every request is answered.
    func testAServerThatWidensTheWindowOnlyWhenItIsUsedUpAnswersEveryRequest() async throws {
        let testbed = try APNsTestbed()
        testbed.simulator.setFaults(APNsSimulatorFaults(widensWindowOnlyWhenUsedUp: true))
        let client = try testbed.client(connections: 1, requestTimeout: .seconds(5))
        defer { client.shutdown() }
        let requests = try testbed.requests(count: 300, text: String(repeating: "flow control ", count: 40))
        let outcomes = await client.send(requests)
        let failures = outcomes.compactMap { outcome -> String? in
            if case let .failure(error) = outcome { return "\(error.kind)" }
            return nil
        }
        XCTAssertEqual(failures.count, 0, "\(failures.count) of \(requests.count) failed: \(Set(failures))")
        XCTAssertGreaterThan(testbed.simulator.statistics.windowsWidenedWhenUsedUp, 0, "the window was used up before it was widened")
        let later = await client.send(Array(requests[..<20]))
        let accepted = later.filter { if case .success(.accepted) = $0 { return true } else { return false } }
        XCTAssertEqual(accepted.count, 20, "the connection goes on")
    }
}
