import HTTP2Client
@testable import HTTP2Client
import APNsSimulator
import FCMClient
import Foundation
import XCTest
import TestSupport

/// OAuth 2.0 for the service account against the simulator's token
/// endpoint: real RS256 assertions, libcurl over HTTP/2 + TLS, the cache's
/// sharing, refresh and invalidation rules.
final class AccessTokenTests: XCTestCase {
    func testAGrantOverHTTP2ReturnsABearerTokenValidForAnHour() async throws {
        let testbed = try FCMTestbed()
        let fetcher = ServiceAccountTokenFetcher(serviceAccount: testbed.serviceAccount, configuration: testbed.tokenEndpoint)
        let grant = try await fetcher.fetch(now: testbed.clock.epochSeconds)
        XCTAssertTrue(grant.accessToken.hasPrefix("ya29."))
        XCTAssertEqual(grant.expiresIn, 3599)
        XCTAssertEqual(grant.tokenType, "Bearer")
        XCTAssertFalse(grant.description.contains(grant.accessToken))
        XCTAssertEqual(testbed.simulator.statistics.grantsIssued, 1)
        // The simulator speaks only h2 (ALPN), so libcurl negotiated HTTP/2 over TLS.
        XCTAssertEqual(testbed.simulator.statistics.connectionsRefused, 0)
    }
}

extension AccessTokenTests {
    func testTwentyConcurrentFirstSendsShareOneGrant() async throws {
        let testbed = try FCMTestbed()
        let tokens = testbed.tokenCache()
        let client = try testbed.client(tokens: tokens, connections: 2)
        defer { client.shutdown() }
        let requests = try testbed.requests(count: 20)
        let outcomes = await withTaskGroup(of: Result<FCMOutcome, TransportError>.self) { group in
            for request in requests { group.addTask { await client.send([request])[0] } }
            var collected: [Result<FCMOutcome, TransportError>] = []
            for await outcome in group { collected.append(outcome) }
            return collected
        }
        XCTAssertEqual(outcomes.count, 20)
        for outcome in outcomes {
            guard case .success(.accepted) = outcome else { return XCTFail("\(outcome)") }
        }
        XCTAssertEqual(tokens.grantCount, 1)
        XCTAssertEqual(testbed.simulator.statistics.grantsIssued, 1)
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 20)
    }

    func testTheTokenIsRefreshedOnceTheRefreshMarginBeforeExpiry() async throws {
        let testbed = try FCMTestbed(sharedClock: true)
        let tokens = testbed.tokenCache()
        let first = try await tokens.accessToken()
        // Valid for 3599 s; refreshed from 3599 - 225 = 3374 s on.
        testbed.clock.advance(by: .seconds(3373))
        let same = try await tokens.accessToken()
        XCTAssertEqual(same, first)
        XCTAssertEqual(tokens.grantCount, 1)
        testbed.clock.advance(by: .seconds(1))
        let stillValid = try await tokens.accessToken()
        XCTAssertEqual(stillValid, first, "handed out while its replacement is fetched")
        try await waitUntil("the replacement is granted") { tokens.grantCount == 2 }
        let second = try await tokens.accessToken()
        XCTAssertNotEqual(second, first)
        let client = try testbed.client(tokens: tokens)
        defer { client.shutdown() }
        let outcome = try await client.send(testbed.requests(count: 1)[0])
        guard case .accepted = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(testbed.simulator.statistics.grantsIssued, 2)
    }

    func testAShortenedLifetimeIsRefreshedAtHalfItsLifeAtTheLatest() async throws {
        let testbed = try FCMTestbed(sharedClock: true)
        testbed.simulator.setAccessTokenLifetime(60)
        let tokens = testbed.tokenCache()
        let client = try testbed.client(tokens: tokens)
        defer { client.shutdown() }
        let requests = try testbed.requests(count: 3)
        for (step, request) in requests.enumerated() {
            let outcome = try await client.send(request)
            guard case .accepted = outcome else { return XCTFail("\(outcome)") }
            // The first send fetched the first token; each later one, 31 s
            // on (past 60 / 2), started its replacement.
            try await waitUntil("grant \(step + 1)") { tokens.grantCount == step + 1 }
            testbed.clock.advance(by: .seconds(31))
        }
        XCTAssertEqual(tokens.grantCount, 3)
        XCTAssertEqual(testbed.simulator.statistics.rejectedPerErrorCode, [:], "never sent an expired token")
    }

    func testATokenEndpointDownIsAClearRetryableErrorThenItRecovers() async throws {
        let testbed = try FCMTestbed()
        testbed.simulator.setTokenEndpointDown(true, retryAfter: 7)
        let fetcher = ServiceAccountTokenFetcher(serviceAccount: testbed.serviceAccount, configuration: testbed.tokenEndpoint)
        do {
            _ = try await fetcher.fetch(now: testbed.clock.epochSeconds)
            XCTFail("the grant succeeded while the endpoint was down")
        } catch {
            XCTAssertEqual(error.kind, .unavailable)
            XCTAssertEqual(error.httpStatus, 503)
            XCTAssertEqual(error.retryAfter, .seconds(7))
            XCTAssertEqual(error.oauthError, "temporarily_unavailable")
            XCTAssertTrue(error.isRetryable)
        }
        let tokens = testbed.tokenCache()
        let client = try testbed.client(tokens: tokens)
        defer { client.shutdown() }
        let requests = try testbed.requests(count: 2)
        let failed = await client.send(requests)
        for outcome in failed {
            guard case .failure(let error) = outcome else { return XCTFail("\(outcome)") }
            XCTAssertEqual(error.kind, .accessTokenUnavailable)
            XCTAssertTrue(error.isRetryable)
            XCTAssertTrue(error.detail.contains("503"), error.detail)
        }
        XCTAssertEqual(tokens.failedGrantCount, 1, "one grant attempt for the batch")
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 0)
        testbed.simulator.setTokenEndpointDown(false)
        // The endpoint asked for 7 s: until then no grant is tried, the sends fail at once.
        let heldOff = await client.send(requests)
        for outcome in heldOff {
            guard case .failure(let error) = outcome else { return XCTFail("\(outcome)") }
            XCTAssertEqual(error.kind, .accessTokenUnavailable)
            XCTAssertTrue(error.detail.contains("no new grant for 7 s"), error.detail)
        }
        XCTAssertEqual(tokens.failedGrantCount, 1, "no grant tried during the hold-off")
        testbed.clock.advance(by: .seconds(7))
        let recovered = await client.send(requests)
        for outcome in recovered {
            guard case .success(.accepted) = outcome else { return XCTFail("\(outcome)") }
        }
        XCTAssertEqual(tokens.grantCount, 1)
        XCTAssertEqual(testbed.simulator.statistics.grantsRefused["unavailable"], 2)
    }

    func testARefusedGrantIsAConfigurationErrorNotRetried() async throws {
        let testbed = try FCMTestbed()
        let impostor = try ThrowawayServiceAccount(projectID: FCMTestbed.projectID,
                                                   clientEmail: testbed.serviceAccount.clientEmail,
                                                   privateKeyID: testbed.serviceAccount.privateKeyID)
        let account = try ServiceAccount(json: impostor.json(tokenURI: testbed.simulator.tokenURI))
        let tokens = AccessTokenCache(serviceAccount: account, configuration: testbed.tokenEndpoint)
        do {
            _ = try await tokens.accessToken()
            XCTFail("an impostor key got a token")
        } catch {
            XCTAssertEqual(error.kind, .refused)
            XCTAssertEqual(error.oauthError, "invalid_grant")
            XCTAssertFalse(error.isRetryable)
            XCTAssertTrue(error.detail.contains("Invalid JWT Signature."), error.detail)
        }
        let client = try testbed.client(tokens: tokens)
        defer { client.shutdown() }
        let outcome = await client.send(try testbed.requests(count: 1))[0]
        guard case .failure(let error) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(error.kind, .credentials)
        XCTAssertFalse(error.isRetryable)
    }

    func testAnUnreachableTokenEndpointIsATransportError() async throws {
        let testbed = try FCMTestbed()
        let json = testbed.account.json(tokenURI: "https://127.0.0.1:1/token")
        let fetcher = ServiceAccountTokenFetcher(serviceAccount: try ServiceAccount(json: json), configuration: testbed.tokenEndpoint)
        do {
            _ = try await fetcher.fetch(now: testbed.clock.epochSeconds)
            XCTFail("port 1 answered")
        } catch {
            XCTAssertEqual(error.kind, .transport)
            XCTAssertTrue(error.isRetryable)
        }
    }

    func testAResponseOverTheSizeCapFailsTheGrant() async throws {
        let testbed = try FCMTestbed()
        var configuration = testbed.tokenEndpoint
        configuration.maximumResponseBytes = 32
        let fetcher = ServiceAccountTokenFetcher(serviceAccount: testbed.serviceAccount, configuration: configuration)
        do {
            _ = try await fetcher.fetch(now: testbed.clock.epochSeconds)
            XCTFail("a response over the cap was read")
        } catch {
            XCTAssertEqual(error.kind, .transport)
            XCTAssertTrue(error.detail.contains("larger than 32 bytes"), error.detail)
        }
    }

    func testAnUntrustedCertificateFailsTheGrant() async throws {
        let testbed = try FCMTestbed()
        let other = try ThrowawayPKI()
        let caFile = NSTemporaryDirectory() + "pushgw-other-ca-\(UUID().uuidString).pem"
        try other.writeCA(to: caFile)
        defer { try? FileManager.default.removeItem(atPath: caFile) }
        let fetcher = ServiceAccountTokenFetcher(serviceAccount: testbed.serviceAccount,
                                                 configuration: TokenEndpointConfiguration(caFile: caFile))
        do {
            _ = try await fetcher.fetch(now: testbed.clock.epochSeconds)
            XCTFail("an untrusted server was believed")
        } catch {
            XCTAssertEqual(error.kind, .transport)
            XCTAssertEqual(testbed.simulator.statistics.grantsIssued, 0)
        }
    }
}
