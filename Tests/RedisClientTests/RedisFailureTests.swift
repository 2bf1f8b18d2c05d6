#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PushGWSync
import RedisClient
import TestSupport
import XCTest

/// What a connection does when its server dies, comes back, is slow or never answers.
final class RedisFailureTests: XCTestCase {
    func testAServerKilledMidFlightFailsThePendingCommandsRetryably() async throws {
        let server = try makeServer()
        let redis = try connect(server.url)
        let observer = try connect(server.url)
        try await waitUntilConnected(redis)
        // BLPOP waits on the server until the kill; the PING pipelined behind it waits too.
        async let blocked = redis.send([RedisCommand("BLPOP", "never", "0"), RedisCommand("PING")])
        try await waitUntil("BLPOP is blocked on the server") {
            let info = try await observer.send(RedisCommand("INFO", "clients")).string ?? ""
            return info.contains("blocked_clients:1")
        }
        observer.close()
        server.kill()
        let results = await blocked
        XCTAssertEqual(results.count, 2)
        for result in results {
            guard case let .failure(error) = result else { return XCTFail("a command succeeded on a killed server: \(result)") }
            XCTAssertEqual(error.kind, .connectionLost, "\(error)")
            XCTAssertTrue(error.isRetryable)
            XCTAssertTrue(error.mayHaveExecuted)
        }
        // Down: a command fails at once (before `send` returns), retryably, and was not sent.
        let failedAtOnce = Locked<RedisError?>(nil)
        redis.send(RedisCommand("PING")) { result in
            if case let .failure(error) = result { failedAtOnce.withLock { $0 = error } }
        }
        XCTAssertEqual(failedAtOnce.withLock { $0 }?.kind, .notConnected, "a command sent while down did not fail at once")
        do {
            _ = try await redis.send(RedisCommand("PING"))
            XCTFail("PING succeeded with the server down")
        } catch {
            XCTAssertEqual(error.kind, .notConnected, "\(error)")
            XCTAssertTrue(error.isRetryable)
            XCTAssertFalse(error.mayHaveExecuted)
        }
    }

    func testAServerRestartedOnTheSamePortIsReconnectedTo() async throws {
        let server = try makeServer(RedisTestServer.Options(users: [["gw", "on", ">pw", "~*", "&*", "+@all"]]))
        let redis = try connect("redis://gw:pw@127.0.0.1:\(server.port)/2")
        try await expectReply(redis, RedisCommand("SET", "before", "1"), .simpleString("OK"))
        server.kill()
        try await waitUntil("the client sees the server down") {
            do {
                _ = try await redis.send(RedisCommand("PING"))
                return false
            } catch {
                return (error as? RedisError)?.kind == .notConnected
            }
        }
        try server.start()
        try await waitUntil("the client is back, logged in and on its database") {
            (try? await redis.send(RedisCommand("CLIENT", "INFO")))?.string.map { $0.contains("db=2") && $0.contains("user=gw") } ?? false
        }
        // No persistence: the restarted server is empty.
        try await expectReply(redis, RedisCommand("GET", "before"), .null)
    }

    func testAReplyLateForItsDeadlineFailsTheCommandAndTheConnectionIsMadeAgain() async throws {
        let server = try makeServer()
        let redis = try connect(server.url)
        try await waitUntilConnected(redis)
        let soon = ContinuousClock.now + .milliseconds(300)
        let later = ContinuousClock.now + .seconds(30)
        async let slow = redis.send(RedisCommand("DEBUG", "SLEEP", "3"), deadline: soon)
        // Sent after the slow one; its own deadline is far, but its reply would come after the lost one's.
        try await Task.sleep(for: .milliseconds(20))
        async let behind = redis.send([RedisCommand("PING")], deadline: later)
        do {
            _ = try await slow
            XCTFail("DEBUG SLEEP 3 answered before a 300 ms deadline")
        } catch let error as RedisError {
            XCTAssertEqual(error.kind, .timeout, "\(error)")
            XCTAssertTrue(error.isRetryable)
            XCTAssertTrue(error.mayHaveExecuted)
        }
        let behindResult = await behind
        if case let .failure(error) = behindResult[0] {
            XCTAssertEqual(error.kind, .connectionLost, "\(error)")
        } else {
            XCTFail("a reply after a timed-out one was matched: \(behindResult)")
        }
        // A new connection answers once the server wakes.
        try await waitUntil("a PING is answered on the new connection", within: .seconds(20)) {
            (try? await redis.send(RedisCommand("PING"))) == .simpleString("PONG")
        }
    }

    func testAServerThatNeverAnswersTheLoginFailsWithinTheConnectTimeout() async throws {
        let listener = try SilentListener()
        let redis = try RedisConnection(configuration: RedisConfiguration(
            url: try RedisURL("redis://:pw@127.0.0.1:\(listener.port)"), connectTimeout: .milliseconds(300),
            commandTimeout: .seconds(30), reconnectDelay: .seconds(5), maximumReconnectDelay: .seconds(5)))
        defer { redis.close() }
        do {
            _ = try await redis.send(RedisCommand("PING"))
            XCTFail("PING answered by a server that reads nothing")
        } catch {
            XCTAssertEqual(error.kind, .notConnected, "\(error)")
            XCTAssertTrue(error.detail.contains("AUTH"), "\(error)")
            XCTAssertTrue(error.isRetryable)
        }
    }

    func testACommandWaitingForTheLoginFailsAtItsDeadlineAsNotSent() async throws {
        let listener = try SilentListener()
        let redis = try RedisConnection(configuration: RedisConfiguration(
            url: try RedisURL("redis://:pw@127.0.0.1:\(listener.port)"), connectTimeout: .seconds(30)))
        defer { redis.close() }
        do {
            _ = try await redis.send(RedisCommand("PING"), deadline: .now + .milliseconds(200))
            XCTFail("PING answered by a server that reads nothing")
        } catch {
            XCTAssertEqual(error.kind, .notConnected, "\(error)")
            XCTAssertTrue(error.detail.contains("deadline"), "\(error)")
            XCTAssertFalse(error.mayHaveExecuted)
        }
    }

    func testNothingListeningIsARetryableConnectFailure() async throws {
        let port = try SilentListener().port // closed again at once
        let redis = try connect("redis://127.0.0.1:\(port)")
        do {
            _ = try await redis.send(RedisCommand("PING"))
            XCTFail("PING answered with nothing listening")
        } catch {
            XCTAssertEqual(error.kind, .notConnected, "\(error)")
            XCTAssertTrue(error.isRetryable)
        }
    }

    func testACommandAfterCloseFailsAsShutdown() async throws {
        let server = try makeServer()
        let redis = try connect(server.url)
        try await expectReply(redis, RedisCommand("PING"), .simpleString("PONG"))
        redis.close()
        do {
            _ = try await redis.send(RedisCommand("PING"))
            XCTFail("PING after close")
        } catch {
            XCTAssertEqual(error.kind, .shutdown)
            XCTAssertFalse(error.isRetryable)
        }
    }
}

/// A loopback TCP listener that accepts nothing and reads nothing (the
/// kernel completes the connect; the bytes sent wait in its buffer).
private final class SilentListener {
    let descriptor: Int32
    let port: Int

    init() throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let descriptor = descriptor
        let ready = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 8) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard ready else { throw RedisTestServerError(description: "cannot listen") }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }
}
