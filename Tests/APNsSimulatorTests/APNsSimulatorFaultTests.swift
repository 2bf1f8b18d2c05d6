import APNsSimulator
import Foundation
import XCTest
import TestSupport

/// Fault injection, scripted answers and stream limits, observed through
/// the in-test nghttp2 client (see APNsSimulatorTests.swift).
final class APNsSimulatorFaultTests: XCTestCase {
    private func ids(_ count: Int) -> [String] {
        (0..<count).map { _ in UUID().uuidString.lowercased() }
    }

    /// A connection that sends nothing for `idleTimeout` is sent GOAWAY
    /// `{"reason":"IdleTimeout"}` and closed, so idle clients cannot hold
    /// every connection slot.
    func testAnIdleConnectionIsSentGoAwayIdleTimeoutAndClosedFreeingItsSlot() throws {
        let fixture = try SimTestFixture {
            $0.idleTimeout = .milliseconds(300)
            $0.maxConnections = 1
        }
        do {
            let client = try fixture.client()
            XCTAssertEqual(client.send(fixture.request()).status, 200)
            client.pump(until: { client.goAway != nil }, timeout: .seconds(3))
            let goAway = try XCTUnwrap(client.goAway)
            XCTAssertEqual(goAway.errorCode, 0)
            XCTAssertEqual(goAway.lastStreamID, 1)
            XCTAssertEqual(String(decoding: goAway.debugData, as: UTF8.self), #"{"reason":"IdleTimeout"}"#)
            XCTAssertTrue(client.waitForClose())
        }  // the client closes its end, so the simulator's linger ends

        var connected: SimTestClient?
        try blockUntil("the slot is released", within: .seconds(3), every: .milliseconds(50)) {
            connected = try? fixture.client()
            return connected != nil
        }
        let next = try XCTUnwrap(connected, "the slot is released")
        XCTAssertEqual(next.send(fixture.request()).status, 200, "the slot is free again")
        XCTAssertEqual(fixture.simulator.statistics.acceptedTotal, 2)
    }

    func testGoAwayAfterThreeStreamsNamesTheLastProcessedStreamAndLeavesTheRestUnanswered() throws {
        let fixture = try SimTestFixture()
        fixture.simulator.setFaults(APNsSimulatorFaults(goAwayAfterStreams: 3))
        let client = try fixture.client()
        let apnsIDs = ids(5)
        let responses = client.send(apnsIDs.map { fixture.request(headers: ["apns-id": $0]) })

        XCTAssertEqual(responses.map(\.status), [200, 200, 200, nil, nil])
        XCTAssertEqual(responses.prefix(3).map(\.apnsID), apnsIDs.prefix(3).map(Optional.some))
        let goAway = try XCTUnwrap(client.goAway)
        XCTAssertEqual(goAway.lastStreamID, 5)
        XCTAssertEqual(goAway.errorCode, 0)
        XCTAssertEqual(String(decoding: goAway.debugData, as: UTF8.self), #"{"reason":"Shutdown"}"#)
        XCTAssertTrue(client.waitForClose(), "the simulator closes after answering the processed streams")

        let statistics = fixture.simulator.statistics
        XCTAssertEqual(statistics.goAwaysSent, 1)
        XCTAssertEqual(statistics.acceptedIDs, Array(apnsIDs.prefix(3)))
        XCTAssertLessThanOrEqual(statistics.unansweredStreams, 2)
    }

    func testDropAfterTwoStreamsClosesTCPWithoutGoAwayMidStream() throws {
        let fixture = try SimTestFixture()
        fixture.simulator.setFaults(APNsSimulatorFaults(dropConnectionAfterStreams: 2))
        let client = try fixture.client()
        let responses = client.send((0..<3).map { _ in fixture.request() })

        XCTAssertEqual(responses.map(\.status), [200, 200, nil])
        XCTAssertTrue(client.isClosed)
        XCTAssertNil(client.goAway)
        let statistics = fixture.simulator.statistics
        XCTAssertEqual(statistics.connectionsDropped, 1)
        XCTAssertEqual(statistics.acceptedTotal, 2)
        XCTAssertEqual(statistics.unansweredStreams, 1)
    }

    func testSilentModeAcceptsStreamsButNeverAnswersThem() throws {
        // The unanswered stream keeps the only pre-authentication stream
        // taken, so this test starts with the full window.
        let fixture = try SimTestFixture { $0.limitStreamsUntilAuthenticated = false }
        fixture.simulator.setFaults(APNsSimulatorFaults(silent: true))
        let client = try fixture.client()
        let unanswered = client.send(fixture.request(), timeout: .milliseconds(500))
        XCTAssertNil(unanswered.status)
        XCTAssertFalse(unanswered.closed)
        XCTAssertFalse(client.isClosed)
        XCTAssertEqual(fixture.simulator.statistics.unansweredStreams, 1)

        fixture.simulator.setFaults(.none)
        XCTAssertEqual(client.send(fixture.request()).status, 200, "the same connection answers again")
        XCTAssertEqual(fixture.simulator.statistics.acceptedTotal, 1)
    }

    func testResponseDelayHoldsTheAnswerBack() throws {
        let fixture = try SimTestFixture()
        fixture.simulator.setFaults(APNsSimulatorFaults(responseDelay: .milliseconds(300)))
        let client = try fixture.client()
        let started = ContinuousClock.now
        let responses = client.send([fixture.request(), fixture.request()])
        let elapsed = ContinuousClock.now - started
        XCTAssertEqual(responses.map(\.status), [200, 200])
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(300))
        XCTAssertLessThan(elapsed, .seconds(3))
    }

    func testScriptedAnswersAreUsedUpInOrderPerToken() throws {
        let fixture = try SimTestFixture()
        let throttled = String(repeating: "01", count: 32)
        let unavailable = String(repeating: "02", count: 32)
        let broken = String(repeating: "03", count: 32)
        let bad = String(repeating: "04", count: 32)
        fixture.simulator.script(token: throttled, responses: [.tooManyRequests])
        fixture.simulator.script(token: unavailable, responses: [.serviceUnavailable, .shutdown])
        fixture.simulator.always(token: broken, .internalServerError)
        fixture.simulator.script(token: bad, responses: [.badDeviceToken])
        let client = try fixture.client()
        func answer(_ token: String) -> String {
            let response = client.send(fixture.request(token: token))
            return "\(response.status ?? 0) \(response.reason ?? "-")"
        }
        XCTAssertEqual(answer(throttled), "429 TooManyRequests")
        XCTAssertEqual(answer(throttled), "200 -")
        XCTAssertEqual(answer(unavailable), "503 ServiceUnavailable")
        XCTAssertEqual(answer(unavailable), "503 Shutdown")
        XCTAssertEqual(answer(unavailable), "200 -")
        XCTAssertEqual(answer(broken), "500 InternalServerError")
        XCTAssertEqual(answer(broken), "500 InternalServerError")
        XCTAssertEqual(answer(bad), "400 BadDeviceToken")

        // An invalid request is answered by validation and keeps the script.
        fixture.simulator.script(token: bad, responses: [.badDeviceToken])
        let invalid = client.send(fixture.request(token: bad, headers: ["apns-topic": nil]))
        XCTAssertEqual(invalid.reason, "MissingTopic")
        XCTAssertEqual(answer(bad), "400 BadDeviceToken")

        fixture.simulator.clearScript()
        XCTAssertEqual(answer(broken), "200 -")
        let statistics = fixture.simulator.statistics
        XCTAssertEqual(statistics.acceptedPerToken[throttled], 1)
        XCTAssertEqual(statistics.rejectedPerReason["InternalServerError"], 2)
    }

    func testANewStreamLimitIsAdvertisedOnOpenConnections() throws {
        let fixture = try SimTestFixture()
        let client = try fixture.client()
        XCTAssertEqual(client.send(fixture.request()).status, 200)
        client.pump(until: { client.peerMaxConcurrentStreams.last == 1000 })
        XCTAssertEqual(client.peerMaxConcurrentStreams, [1, 1000], "1 until the first valid JWT")

        fixture.simulator.setMaxConcurrentStreams(7)
        client.pump(until: { client.peerMaxConcurrentStreams.last == 7 })
        XCTAssertEqual(client.peerMaxConcurrentStreams, [1, 1000, 7])
        XCTAssertEqual(client.send(fixture.request()).status, 200)

        let late = try fixture.client()
        XCTAssertEqual(late.send(fixture.request()).status, 200)
        late.pump(until: { late.peerMaxConcurrentStreams.last == 7 })
        XCTAssertEqual(late.peerMaxConcurrentStreams, [1, 7])
    }

    /// Apple's behaviour is the default (PROTOCOLS.md A6), so every test,
    /// the demo and the benchmarks meet the 1-stream window.
    func testOneStreamIsAllowedUntilAValidProviderTokenByDefault() throws {
        XCTAssertTrue(APNsSimulatorConfiguration(teamID: "T", keys: [:], topics: []).limitStreamsUntilAuthenticated)
        let fixture = try SimTestFixture()
        let client = try fixture.client()
        let stranger = try SimTestKey()
        let forged = stranger.jwt(keyID: SimTestFixture.keyID, teamID: SimTestFixture.teamID, issuedAt: simNowSeconds())
        XCTAssertEqual(client.send(fixture.request(jwt: forged)).reason, "InvalidProviderToken")
        XCTAssertEqual(client.peerMaxConcurrentStreams, [1])

        XCTAssertEqual(client.send(fixture.request()).status, 200)
        client.pump(until: { client.peerMaxConcurrentStreams.last == 1000 })
        XCTAssertEqual(client.peerMaxConcurrentStreams, [1, 1000])
    }

    func testNothingIsLostAndNothingSentTwiceWhenRetryingAcrossGoAwaysAndDrops() throws {
        let fixture = try SimTestFixture()
        let all = ids(60)
        var remaining = all
        var round = 0
        while !remaining.isEmpty, round < 40 {
            // Alternate the two ways a connection ends under load.
            fixture.simulator.setFaults(round % 2 == 0
                ? APNsSimulatorFaults(goAwayAfterStreams: 7)
                : APNsSimulatorFaults(dropConnectionAfterStreams: 5))
            let client = try fixture.client()
            let batch = Array(remaining.prefix(12))
            let responses = client.send(batch.map { fixture.request(headers: ["apns-id": $0]) })
            let answered = Set(zip(batch, responses).filter { $0.1.status == 200 }.map(\.0))
            XCTAssertFalse(answered.isEmpty)
            remaining.removeAll { answered.contains($0) }
            round += 1
        }
        XCTAssertEqual(remaining, [])
        let statistics = fixture.simulator.statistics
        XCTAssertEqual(statistics.duplicateAcceptedIDs, [])
        XCTAssertEqual(Set(statistics.acceptedIDs), Set(all))
        XCTAssertEqual(statistics.acceptedTotal, all.count)
        XCTAssertGreaterThan(statistics.goAwaysSent, 0)
        XCTAssertGreaterThan(statistics.connectionsDropped, 0)
    }

    func testConnectionsBeyondTheBoundAreClosedOnAccept() throws {
        let fixture = try SimTestFixture { $0.maxConnections = 2 }
        let first = try fixture.client()
        let second = try fixture.client()
        XCTAssertEqual(first.send(fixture.request()).status, 200)
        XCTAssertEqual(second.send(fixture.request()).status, 200)
        XCTAssertThrowsError(try fixture.client())
        XCTAssertEqual(fixture.simulator.openConnections, 2)
    }

    func testReleasingARunningSimulatorStopsItsThreads() throws {
        var client: SimTestClient?
        do {
            let fixture = try SimTestFixture()
            client = try fixture.client()
            XCTAssertEqual(client?.send(fixture.request()).status, 200)
        }
        XCTAssertEqual(client?.waitForClose(timeout: .seconds(2)), true)
    }
}
