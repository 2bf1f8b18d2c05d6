@testable import APNsHTTP2
@testable import HTTP2Client
import APNsSimulator
import Foundation
import Glibc
import Synchronization
import XCTest
import TestSupport

/// Servers that connect slowly, misbehave right after the handshake, or
/// answer slowly: every request still ends on its own deadline, a broken
/// session ends its connection, and a pool does not reconnect as fast as a
/// server can close.
final class HTTP2ConnectionFailureTests: XCTestCase {
    /// The TLS handshake never completes: the request's own timeout ends
    /// it, not the (much longer) connect timeout.
    func testARequestQueuedWhileConnectingEndsAtItsOwnTimeout() async throws {
        let listener = try SilentListener()
        var options = HTTP2ConnectionOptions()
        options.connectTimeout = .seconds(60)
        let connection = try HTTP2Connection(host: "127.0.0.1", port: listener.port, tls: TLSConfiguration(), options: options)
        defer { connection.shutdown() }
        do throws(TransportError) {
            _ = try await connection.send(HTTP2Request(path: "/", timeout: .milliseconds(300)))
            XCTFail("a server that never finished the handshake answered")
        } catch {
            XCTAssertEqual(error.kind, .timeout, "\(error)")
            XCTAssertFalse(connection.didConnect)
        }
    }

    /// The connect timeout ends a connection whose handshake hangs: its
    /// request fails `connect_failed` and the connection ends. (The TLS
    /// handshake keeps this deadline itself, and so does the loop; the
    /// loop's alone, for a connect thread stuck in a DNS lookup, is not
    /// tested here: that would need a lookup that hangs.)
    func testTheConnectTimeoutEndsAConnectionWhoseHandshakeHangs() async throws {
        let listener = try SilentListener()
        var options = HTTP2ConnectionOptions()
        options.connectTimeout = .milliseconds(300)
        let (closed, closing) = AsyncStream<Void>.makeStream()
        let connection = try HTTP2Connection(host: "127.0.0.1", port: listener.port, tls: TLSConfiguration(), options: options,
                                             onClose: { _ in closing.yield() })
        do throws(TransportError) {
            _ = try await connection.send(HTTP2Request(path: "/", timeout: .seconds(60)))
            XCTFail("a server that never finished the handshake answered")
        } catch {
            XCTAssertEqual(error.kind, .connectFailed, "\(error)")
        }
        let ended = await Self.first(closed, within: .seconds(20))
        XCTAssertTrue(ended, "the connection ends")
        XCTAssertFalse(connection.isAcceptingRequests)
    }

    /// A request re-sent by a pool keeps its first attempt's start, so it can
    /// wait behind a fresher request with a later deadline: it still ends on
    /// its own, while the request ahead of both is still being answered.
    func testAnEarlierDeadlineWaitingBehindALaterOneEndsOnTime() async throws {
        let testbed = try APNsTestbed()
        testbed.simulator.setMaxConcurrentStreams(1)
        let connection = try HTTP2Connection(host: "127.0.0.1", port: testbed.simulator.port,
                                             tls: TLSConfiguration(caFile: testbed.caFile))
        defer { connection.shutdown() }
        // The first answer comes after the server's SETTINGS: the limit of 1 is known.
        _ = try await connection.send(HTTP2Request(path: "/3/device/00"))
        testbed.simulator.setFaults(APNsSimulatorFaults(responseDelay: .seconds(2)))

        let order = Mutex<[String]>([])
        let now = ContinuousClock.now
        let sends: [(name: String, startedAt: ContinuousClock.Instant)] = [
            ("in flight", now), ("waiting, later deadline", now), ("waiting, earlier deadline", now - .milliseconds(19_700)),
        ]
        let outcomes = await withTaskGroup(of: (String, Result<HTTP2Response, TransportError>).self) { group in
            for send in sends {
                let (results, delivered) = AsyncStream<[Result<HTTP2Response, TransportError>]>.makeStream()
                connection.send(HTTP2Requests([HTTP2Request(path: "/3/device/00", timeout: .seconds(20))]), startedAt: send.startedAt) { result in
                    order.withLock { $0.append(send.name) }
                    delivered.yield(result)
                }
                group.addTask {
                    for await result in results { return (send.name, result[0]) }
                    return (send.name, .failure(TransportError(.notSent, "no result")))
                }
            }
            var outcomes: [String: Result<HTTP2Response, TransportError>] = [:]
            for await (name, outcome) in group { outcomes[name] = outcome }
            return outcomes
        }
        guard case let .failure(error) = outcomes["waiting, earlier deadline"] else { return XCTFail("\(outcomes)") }
        XCTAssertEqual(error.kind, .timeout)
        XCTAssertEqual(try outcomes["in flight"]?.get().status, 400, "answered: BadDeviceToken")
        XCTAssertEqual(try outcomes["waiting, later deadline"]?.get().status, 400)
        XCTAssertEqual(order.withLock { $0 }, ["waiting, earlier deadline", "in flight", "waiting, later deadline"])
    }

    /// A server that completes the handshake and at once sends GOAWAY and
    /// closes: the pool backs off between connections instead of opening
    /// them as fast as the server closes them.
    func testAPoolBacksOffFromAServerThatClosesEveryConnectionAtOnce() async throws {
        let testbed = try APNsTestbed()
        testbed.simulator.setFaults(APNsSimulatorFaults(goAwayAfterStreams: 0))
        let pool = try HTTP2ConnectionPool(host: "127.0.0.1", port: testbed.simulator.port,
                                           tls: TLSConfiguration(caFile: testbed.caFile), connections: 1)
        defer { pool.shutdown() }
        let outcome = await pool.send([HTTP2Request(path: "/3/device/00", timeout: .seconds(2))])[0]
        guard case let .failure(error) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertTrue(error.isRetryable, "\(error)")
        // Back-off from 100 ms, doubling (50–100% with jitter): at most 7 connections in 2 s.
        let accepted = testbed.simulator.statistics.connectionsAccepted
        XCTAssertGreaterThanOrEqual(accepted, 2, "the pool tried again")
        XCTAssertLessThanOrEqual(accepted, 8, "connections opened in 2 s")
    }

    /// After a malformed frame nghttp2 sends its own GOAWAY and refuses every
    /// new stream: the connection ends, so the request in flight ends as a
    /// retryable loss at once instead of waiting for its timeout, and
    /// nothing more is queued on it.
    func testAMalformedFrameFromTheServerEndsTheConnection() async throws {
        let testbed = try APNsTestbed()
        testbed.simulator.setFaults(APNsSimulatorFaults(malformedFrameAfter: .zero))
        let (closed, closing) = AsyncStream<Void>.makeStream()
        let connection = try HTTP2Connection(host: "127.0.0.1", port: testbed.simulator.port,
                                             tls: TLSConfiguration(caFile: testbed.caFile), onClose: { _ in closing.yield() })
        defer { connection.shutdown() }
        do throws(TransportError) {
            _ = try await connection.send(HTTP2Request(path: "/3/device/00", timeout: .seconds(30)))
            XCTFail("answered after a malformed frame")
        } catch {
            XCTAssertNotEqual(error.kind, .timeout, "\(error)")
            XCTAssertTrue(error.isRetryable, "\(error)")
        }
        let ended = await Self.first(closed, within: .seconds(20))
        XCTAssertTrue(ended, "the connection ends")
        XCTAssertFalse(connection.isAcceptingRequests)
    }

    /// The same while the connection drains for a graceful shutdown: the
    /// broken session still ends the connection, and the request in flight
    /// ends as a retryable loss instead of waiting for its timeout.
    func testAMalformedFrameDuringAGracefulShutdownStillEndsTheConnection() async throws {
        let testbed = try APNsTestbed()
        // Silent: the simulator counts the request as unanswered once it has
        // it, which is when the test starts the shutdown.
        testbed.simulator.setFaults(APNsSimulatorFaults(silent: true, malformedFrameAfter: .milliseconds(1500)))
        let (closed, closing) = AsyncStream<Void>.makeStream()
        let closedEarly = Atomic<Bool>(false)
        let connection = try HTTP2Connection(host: "127.0.0.1", port: testbed.simulator.port,
                                             tls: TLSConfiguration(caFile: testbed.caFile), onClose: { _ in
                                                 closedEarly.store(true, ordering: .relaxed)
                                                 closing.yield()
                                             })
        let inFlight = Task { () -> TransportError? in
            do throws(TransportError) {
                _ = try await connection.send(HTTP2Request(path: "/3/device/00", timeout: .seconds(30)))
                return nil
            } catch {
                return error
            }
        }
        try await waitUntil("the simulator has the request") { testbed.simulator.statistics.unansweredStreams == 1 }
        XCTAssertFalse(closedEarly.load(ordering: .relaxed), "the shutdown comes before the malformed frame, or the test proves nothing")
        connection.shutdown()  // graceful: the request in flight may finish
        let ended = await Self.first(closed, within: .seconds(20))
        XCTAssertTrue(ended, "the connection ends")
        let error = await inFlight.value
        XCTAssertEqual(error?.kind, .connectionLost, "\(String(describing: error))")
    }

    /// A request handed to a connection that drains after a GOAWAY goes
    /// elsewhere at once (`not_sent`, which the pool re-sends), instead of
    /// waiting for the drain to end and then timing out unsent.
    func testARequestForADrainingConnectionIsRefusedAsNotSent() async throws {
        let testbed = try APNsTestbed()
        testbed.simulator.setFaults(APNsSimulatorFaults(goAwayAfterStreams: 1, responseDelay: .seconds(3)))
        let connection = try HTTP2Connection(host: "127.0.0.1", port: testbed.simulator.port,
                                             tls: TLSConfiguration(caFile: testbed.caFile))
        defer { connection.shutdown() }
        let first = Task { () -> Int? in try? await connection.send(HTTP2Request(path: "/3/device/00")).status }
        try await waitUntil("the GOAWAY arrives") { !connection.isAcceptingRequests }
        do throws(TransportError) {
            _ = try await connection.send(HTTP2Request(path: "/3/device/00", timeout: .seconds(1)))
            XCTFail("a draining connection took a request")
        } catch {
            XCTAssertEqual(error.kind, .notSent, "\(error)")
        }
        let answered = await first.value
        XCTAssertEqual(answered, 400, "the request before the GOAWAY is still answered")
    }

    /// Whether `stream` yields within `limit` (a bound for a hang, not a speed check).
    private static func first(_ stream: AsyncStream<Void>, within limit: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in stream { return true }
                return false
            }
            group.addTask {
                // The bound itself: how long a hang may last before it counts as one.
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}

/// A TCP listener on 127.0.0.1 that never accepts: the kernel completes
/// the TCP handshake into its backlog, and nobody ever answers TLS.
private final class SilentListener {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let listening = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listening >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listening, address, length) == 0 && listen(listening, 16) == 0
                    && getsockname(listening, address, &length) == 0
            }
        }
        guard bound else {
            close(listening)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        descriptor = listening
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }
}
