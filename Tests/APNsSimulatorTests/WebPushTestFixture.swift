import APNsSimulator
import Foundation
import TestSupport

/// A running web push simulator on a test clock, and request builders for
/// the in-test nghttp2 client (APNsSimulatorTests.swift).
final class WebPushTestFixture {
    static let contact = "mailto:ops@example.com"

    let clock = TestClock()
    let simulator: WebPushSimulator

    init(_ configure: (inout WebPushSimulatorConfiguration) -> Void = { _ in }) throws {
        let clock = self.clock
        var configuration = WebPushSimulatorConfiguration(clock: { Double(clock.epochSeconds) })
        configure(&configuration)
        simulator = try WebPushSimulator(configuration: configuration)
        try simulator.start()
    }

    /// The test clock's second.
    var now: Int { Int(clock.epochSeconds) }

    func client() throws -> SimTestClient {
        try SimTestClient(port: simulator.port, caPEM: simulator.caPEM, host: "127.0.0.1")
    }

    /// VAPID claims for the simulator's origin, valid for 12 hours unless told.
    func claims(audience: String? = nil, expiresIn: Int = 43_200, subject: String? = WebPushTestFixture.contact) -> [String: Any] {
        var claims: [String: Any] = ["aud": audience ?? simulator.url, "exp": now + expiresIn]
        if let subject { claims["sub"] = subject }
        return claims
    }

    /// The reference script's request for `subscription`: one message per
    /// plaintext, JWTs over `tokens`, and py_vapid's authorization for the
    /// default claims.
    func referenceRequest(for subscription: WebPushSubscription, plaintexts: [String] = [], recordSize: Int = 4096,
                          tokens: [[String: Any]] = []) -> [String: Any] {
        [
            "p256dh": subscription.p256dh,
            "auth": subscription.auth,
            "messages": plaintexts.map { ["plaintext": simBase64URL(Array($0.utf8)), "rs": recordSize] },
            "tokens": tokens.map { ["claims": $0] },
            "py_vapid_claims": claims(),
        ]
    }

    /// A push request to `subscription`; `headers` replace or add fields (a nil value removes one).
    func request(_ subscription: WebPushSubscription, body: [UInt8], authorization: String?,
                 headers: [String: String?] = [:]) -> SimTestRequest {
        var fields: [(String, String)] = [("ttl", "60")]
        if let authorization { fields.append(("authorization", authorization)) }
        if !body.isEmpty { fields.append(("content-encoding", "aes128gcm")) }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            fields.removeAll { $0.0 == name }
            if let value { fields.append((name, value)) }
        }
        let path = URL(string: subscription.endpoint)?.path ?? "/"
        return SimTestRequest(path: path, headers: fields, body: body)
    }
}
