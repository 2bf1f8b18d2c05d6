@testable import APNsHTTP2
@testable import HTTP2Client
import APNsSimulator
import Foundation
import PayloadBuilder
import XCTest
import TestSupport

/// The pool's resends and fresh connections: an answer is
/// filed under its own request whatever order connections answer in; a
/// draining connection does not hold up new requests; a new connection
/// opens one stream until the server's SETTINGS say how many it takes.
final class HTTP2PoolResendTests: XCTestCase {
    private func requests(_ testbed: APNsTestbed, count: Int, timeout: Duration) throws -> [HTTP2Request] {
        let authorization = "bearer \(try testbed.tokens.token(now: testbed.clock.epochSeconds))"
        return try testbed.requests(count: count).map {
            HTTP2Request(path: $0.path, authorization: authorization, headers: $0.headers, body: Array($0.body), timeout: timeout)
        }
    }

    private static func apnsID(_ request: HTTP2Request) -> String? {
        request.headers.first { $0.name == "apns-id" }?.value
    }

    /// Connections answering in another order than they were given their
    /// shares: the requests to send again come back in request order, so a
    /// next round that sends them whole to one connection files each answer
    /// under its own request.
    func testRequestsToSendAgainComeBackInRequestOrder() {
        let notSent = Result<HTTP2Response, TransportError>.failure(TransportError(.notSent, "GOAWAY"))
        var results = [Result<HTTP2Response, TransportError>?](repeating: nil, count: 6)
        var lastError: [Int: TransportError] = [:]
        let shares = [[0, 2, 4], [1, 3, 5]]
        // The second connection answered first.
        let retry = HTTP2ConnectionPool.settle([(1, [notSent, notSent, notSent]), (0, [notSent, notSent, notSent])],
                                               shares: shares, results: &results, lastError: &lastError)
        XCTAssertEqual(retry, [0, 1, 2, 3, 4, 5])
        let six = HTTP2Requests((0..<6).map { HTTP2Request(path: "/\($0)") })
        XCTAssertTrue(HTTP2ConnectionPool.isWhole(retry, of: six))
        XCTAssertFalse(HTTP2ConnectionPool.isWhole([1, 0, 2, 3, 4, 5], of: six), "every request, but not in order")
        XCTAssertFalse(HTTP2ConnectionPool.isWhole([0, 1, 2], of: six))
    }

    /// End to end: both first connections end with GOAWAY before processing
    /// anything, so every request is sent again, then on whichever slot is
    /// up first. Each answer's `apns-id` is its own request's.
    func testAnswersAfterResendsBelongToTheirOwnRequests() async throws {
        for attempt in 0..<8 {
            let testbed = try APNsTestbed()
            testbed.simulator.setFaults(APNsSimulatorFaults(goAwayAfterStreams: 0))
            let pool = try HTTP2ConnectionPool(host: "127.0.0.1", port: testbed.simulator.port,
                                               tls: TLSConfiguration(caFile: testbed.caFile), connections: 2)
            defer { pool.shutdown() }
            let simulator = testbed.simulator
            let clearer = Task {
                // Polled often: the faults must be gone before the pool reconnects.
                try? await waitUntil("both first connections get a GOAWAY", within: .seconds(5), every: .milliseconds(1)) {
                    simulator.statistics.goAwaysSent >= 2
                }
                simulator.setFaults(.none)
            }
            let sent = try requests(testbed, count: 6, timeout: .seconds(5))

            let results = await pool.send(sent)
            await clearer.value

            for (index, result) in results.enumerated() {
                let response = try XCTUnwrap(try? result.get(), "attempt \(attempt), request \(index): \(result)")
                XCTAssertEqual(response.header("apns-id"), Self.apnsID(sent[index]), "attempt \(attempt), request \(index)")
            }
        }
    }

    /// One connection, draining after a GOAWAY with its one stream answered
    /// only after 3 s: a new request gets a fresh connection at once.
    func testADrainingConnectionGivesUpItsSlot() async throws {
        let testbed = try APNsTestbed()
        let pool = try HTTP2ConnectionPool(host: "127.0.0.1", port: testbed.simulator.port,
                                           tls: TLSConfiguration(caFile: testbed.caFile), connections: 1)
        defer { pool.shutdown() }
        let sent = try requests(testbed, count: 3, timeout: .seconds(10))
        let warmUp = await pool.send([sent[0]])[0]
        XCTAssertEqual(try warmUp.get().status, 200, "the connection has served")
        testbed.simulator.setFaults(APNsSimulatorFaults(goAwayAfterStreams: 1, responseDelay: .seconds(3)))
        let slow = Task { await pool.send([sent[1]])[0] }
        try await waitUntil("the connection gets a GOAWAY", within: .seconds(5)) { testbed.simulator.statistics.goAwaysSent >= 1 }
        testbed.simulator.setFaults(.none)

        var next = sent[2]
        next.timeout = .seconds(1)
        let answer = await pool.send([next])[0]

        XCTAssertEqual(try answer.get().status, 200, "a healthy server takes a new connection: \(answer)")
        XCTAssertEqual(testbed.simulator.statistics.connectionsAccepted, 2)
        let slowAnswer = await slow.value
        XCTAssertEqual(try slowAnswer.get().status, 200, "the draining connection still answered its stream")
    }

    /// A fresh connection to a server that takes one stream until it has
    /// seen a valid token (as APNs): the queued requests wait for its
    /// SETTINGS instead of being refused (APNs answered GOAWAY).
    func testAFreshConnectionOpensOneStreamUntilTheServersSettings() async throws {
        let testbed = try APNsTestbed()
        let connection = try HTTP2Connection(host: "127.0.0.1", port: testbed.simulator.port,
                                             tls: TLSConfiguration(caFile: testbed.caFile))
        defer { connection.shutdown() }
        let sent = try requests(testbed, count: 20, timeout: .seconds(10))

        let results = await connection.send(sent)

        for (index, result) in results.enumerated() {
            XCTAssertEqual((try? result.get())?.status, 200, "request \(index): \(result)")
        }
    }

    /// A client that does not wait for SETTINGS (20 streams at once where
    /// the simulator, as APNs, takes one until it has seen a valid token)
    /// gets a GOAWAY saying so, as APNs answered (PROTOCOLS.md A6): the
    /// first request answered, no other processed. Before, the simulator
    /// refused the extra streams one by one, so such a client passed.
    func testTheSimulatorEndsAConnectionThatOpensMoreStreamsThanAllowed() async throws {
        let testbed = try APNsTestbed()
        var options = HTTP2ConnectionOptions()
        options.streamsBeforeSettings = 100
        // Ready before the connection is made, and given to it at once: they
        // wait for the handshake and go out together, before the server's
        // SETTINGS is read.
        let sent = try requests(testbed, count: 20, timeout: .seconds(10))
        let connection = try HTTP2Connection(host: "127.0.0.1", port: testbed.simulator.port,
                                             tls: TLSConfiguration(caFile: testbed.caFile), options: options)
        defer { connection.shutdown() }

        let results = await connection.send(sent)

        XCTAssertEqual(testbed.simulator.statistics.goAwaysSent, 1)
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)
        XCTAssertEqual((try? results[0].get())?.status, 200)
        for (index, result) in results.enumerated().dropFirst() {
            guard case let .failure(error) = result else { return XCTFail("request \(index) answered: \(result)") }
            XCTAssertTrue(error.wasNotProcessed, "request \(index): \(error)")
        }
    }
}
