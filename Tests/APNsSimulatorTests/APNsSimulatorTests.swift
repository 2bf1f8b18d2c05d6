import APNsSimulator
import CNGHTTP2
import COpenSSL
import COpenSSLShims
import Foundation
import Synchronization
import XCTest
import PushGWSync
import TestSupport

// End-to-end tests of the APNs simulator, driven by a client written here
// directly on nghttp2 + OpenSSL (independent of APNsHTTP2), and JWTs signed
// here with OpenSSL (independent of the production signer).

// MARK: - ES256 test key and JWT

/// A P-256 key for tests: signs JWTs as APNs expects (raw R‖S, base64url).
final class SimTestKey {
    let pointer: OpaquePointer

    init() throws {
        pointer = try XCTUnwrap(pgw_evp_ec_gen_p256())
    }

    deinit { EVP_PKEY_free(pointer) }

    /// The public key as a PEM `PUBLIC KEY` block (what the simulator registers).
    var publicKeyPEM: String {
        let bio = BIO_new(BIO_s_mem())!
        defer { BIO_free(bio) }
        precondition(PEM_write_bio_PUBKEY(bio, pointer) == 1)
        var data: UnsafePointer<CChar>?
        let length = pgw_bio_get_mem_data(bio, &data)
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }

    /// ES256 over `message`: EVP_DigestSign gives DER, converted to raw R‖S.
    func sign(_ message: [UInt8]) -> [UInt8] {
        let context = EVP_MD_CTX_new()!
        defer { EVP_MD_CTX_free(context) }
        precondition(EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1)
        var length = 0
        precondition(EVP_DigestSign(context, nil, &length, message, message.count) == 1)
        var der = [UInt8](repeating: 0, count: length)
        precondition(EVP_DigestSign(context, &der, &length, message, message.count) == 1)
        let signature = der.withUnsafeBufferPointer { buffer -> OpaquePointer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, length)!
        }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        raw.withUnsafeMutableBufferPointer { buffer in
            precondition(BN_bn2binpad(r, buffer.baseAddress, 32) == 32)
            precondition(BN_bn2binpad(s, buffer.baseAddress! + 32, 32) == 32)
        }
        return raw
    }

    /// A provider token `{"alg":"ES256","kid":…}.{"iss":…,"iat":…}.sig`.
    func jwt(keyID: String, teamID: String, issuedAt: Int, algorithm: String = "ES256") -> String {
        let header = simBase64URL(Array(#"{"alg":"\#(algorithm)","kid":"\#(keyID)"}"#.utf8))
        let claims = simBase64URL(Array(#"{"iss":"\#(teamID)","iat":\#(issuedAt)}"#.utf8))
        let signingInput = header + "." + claims
        return signingInput + "." + simBase64URL(sign(Array(signingInput.utf8)))
    }
}

func simBase64URL(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

func simNowSeconds() -> Int { Int(Date().timeIntervalSince1970) }

// MARK: - Minimal HTTP/2 client on nghttp2 + OpenSSL

struct SimTestRequest {
    var method = "POST"
    var path: String
    var headers: [(String, String)] = []
    var body: [UInt8] = []
}

struct SimTestResponse {
    var status: Int?
    var headers: [(String, String)] = []
    var body: [UInt8] = []
    var closed = false
    var resetCode: UInt32 = 0

    func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
    var apnsID: String? { header("apns-id") }
    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }
    var reason: String? { json?["reason"] as? String }
}

struct SimTestGoAway {
    let lastStreamID: Int32
    let errorCode: UInt32
    let debugData: [UInt8]
}

enum SimTestClientError: Error {
    case connect(Int32)
    case handshake(String)
}

private func simClient(_ userData: UnsafeMutableRawPointer?) -> SimTestClient {
    Unmanaged<SimTestClient>.fromOpaque(userData!).takeUnretainedValue()
}

private let simClientOnHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
    guard let frame, let name, let value, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
    simClient(userData).received(
        header: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
        value: String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self),
        streamID: frame.pointee.hd.stream_id
    )
    return 0
}

private let simClientOnData: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
    simClient(userData).results[streamID]?.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
    return 0
}

private let simClientOnStreamClose: nghttp2_on_stream_close_callback = { _, streamID, errorCode, userData in
    simClient(userData).results[streamID]?.closed = true
    simClient(userData).results[streamID]?.resetCode = errorCode
    return 0
}

private let simClientOnFrame: nghttp2_on_frame_recv_callback = { _, frame, userData in
    guard let frame else { return 0 }
    let client = simClient(userData)
    switch frame.pointee.hd.type {
    case UInt8(NGHTTP2_GOAWAY.rawValue):
        let goAway = frame.pointee.goaway
        let debug = goAway.opaque_data.map { Array(UnsafeBufferPointer(start: $0, count: goAway.opaque_data_len)) } ?? []
        client.goAway = SimTestGoAway(lastStreamID: goAway.last_stream_id, errorCode: goAway.error_code, debugData: debug)
    case UInt8(NGHTTP2_SETTINGS.rawValue) where frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
        let settings = frame.pointee.settings
        for index in 0..<settings.niv {
            let entry = settings.iv[index]
            if entry.settings_id == Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue) {
                client.peerMaxConcurrentStreams.append(entry.value)
            }
        }
    default:
        break
    }
    return 0
}

private let simClientReadBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
    let client = simClient(userData)
    guard let buffer, let flags, let body = client.requestBodies[streamID] else { return 0 }
    let offset = client.requestOffsets[streamID, default: 0]
    let count = min(length, body.count - offset)
    for index in 0..<count { buffer[index] = body[offset + index] }
    client.requestOffsets[streamID] = offset + count
    if offset + count == body.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
    return count
}

/// A blocking, single-threaded HTTP/2 client: enough to send requests on one
/// connection and read `:status`, headers, body, GOAWAY and SETTINGS.
final class SimTestClient {
    private let socket: Int32
    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private var session: OpaquePointer?
    let negotiatedProtocol: String?
    fileprivate(set) var results: [Int32: SimTestResponse] = [:]
    fileprivate var requestBodies: [Int32: [UInt8]] = [:]
    fileprivate var requestOffsets: [Int32: Int] = [:]
    fileprivate(set) var goAway: SimTestGoAway?
    fileprivate(set) var peerMaxConcurrentStreams: [UInt32] = []
    private(set) var isClosed = false
    private var writeFailed = false

    /// Connects to 127.0.0.1:`port`, verifies the server against `caPEM`
    /// for `host` (a DNS name or an IP address), and offers `alpn`.
    init(port: Int, caPEM: String, host: String = "localhost", alpn: [String] = ["h2"]) throws {
        signal(SIGPIPE, SIG_IGN)
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        socket = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var timeout = timeval(tv_sec: 0, tv_usec: 50_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        context = SSL_CTX_new(TLS_client_method())!
        ssl = SSL_new(context)!
        guard connected == 0 else {
            throw SimTestClientError.connect(errno)
        }
        _ = pgw_ssl_ctx_set_min_proto_version(context, pgw_ssl_tls1_2_version())
        let certificate = caPEM.withCString { text -> OpaquePointer? in
            let bio = BIO_new_mem_buf(text, -1)
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, nil, nil)
        }
        X509_STORE_add_cert(SSL_CTX_get_cert_store(context), certificate)
        X509_free(certificate)
        SSL_set_verify(ssl, SSL_VERIFY_PEER, nil)
        if !alpn.isEmpty {
            let wire = alpn.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
            precondition(SSL_set_alpn_protos(ssl, wire, UInt32(wire.count)) == 0)
        }
        if inet_addr(host) != INADDR_NONE {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
        } else {
            SSL_set1_host(ssl, host)
            _ = pgw_ssl_set_tlsext_host_name(ssl, host)
        }
        SSL_set_fd(ssl, socket)

        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            let result = SSL_connect(ssl)
            if result == 1 { break }
            let error = SSL_get_error(ssl, result)
            if error == SSL_ERROR_WANT_READ, ContinuousClock.now < deadline { continue }
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(ERR_get_error(), &text, text.count)
            ERR_clear_error()
            throw SimTestClientError.handshake(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        negotiatedProtocol = data.map { String(decoding: UnsafeBufferPointer(start: $0, count: Int(length)), as: UTF8.self) }

        guard negotiatedProtocol == "h2" else { return }
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, simClientOnHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, simClientOnData)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, simClientOnStreamClose)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, simClientOnFrame)
        nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque())
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil, 0)
    }

    deinit {
        if let session { nghttp2_session_del(session) }
        SSL_free(ssl)
        SSL_CTX_free(context)
        close(socket)
    }

    fileprivate func received(header name: String, value: String, streamID: Int32) {
        if name == ":status" {
            results[streamID]?.status = Int(value)
        } else {
            results[streamID]?.headers.append((name, value))
        }
    }

    /// Sends `requests` concurrently and waits until each stream closed, the
    /// connection closed, or `timeout` passed. Unanswered requests come back
    /// with `status == nil`.
    ///
    /// Like any well-behaved client it first waits for the server's
    /// SETTINGS, so nghttp2 keeps to the advertised stream limit: before a
    /// valid JWT the simulator allows 1 stream (PROTOCOLS.md A6), and the
    /// rest wait their turn until it raises the limit.
    func send(_ requests: [SimTestRequest], timeout: Duration = .seconds(5)) -> [SimTestResponse] {
        guard let session else { return requests.map { _ in SimTestResponse() } }
        if peerMaxConcurrentStreams.isEmpty { pump(until: { !self.peerMaxConcurrentStreams.isEmpty }, timeout: timeout) }
        var streamIDs: [Int32] = []
        for request in requests {
            var fields = [(":method", request.method), (":scheme", "https"), (":authority", "localhost"), (":path", request.path)]
            fields += request.headers
            let streamID = withHeaderBlock(fields) { headers, count -> Int32 in
                if request.body.isEmpty {
                    return nghttp2_submit_request(session, nil, headers, count, nil, nil)
                }
                var provider = nghttp2_data_provider()
                provider.read_callback = simClientReadBody
                return nghttp2_submit_request(session, nil, headers, count, &provider, nil)
            }
            precondition(streamID > 0, "nghttp2_submit_request failed: \(streamID)")
            requestBodies[streamID] = request.body
            results[streamID] = SimTestResponse()
            streamIDs.append(streamID)
        }
        pump(until: { streamIDs.allSatisfy { self.results[$0]?.closed == true } }, timeout: timeout)
        return streamIDs.map { results[$0] ?? SimTestResponse() }
    }

    /// Sends one request.
    func send(_ request: SimTestRequest, timeout: Duration = .seconds(5)) -> SimTestResponse {
        send([request], timeout: timeout)[0]
    }

    /// Exchanges frames until `condition` holds, the connection closes, or `timeout` passes.
    func pump(until condition: () -> Bool, timeout: Duration = .seconds(5)) {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !isClosed {
            flush()
            if condition() || ContinuousClock.now >= deadline { return }
            let count = SSL_read(ssl, &buffer, Int32(buffer.count))
            if count > 0 {
                if let session, nghttp2_session_mem_recv(session, buffer, Int(count)) < 0 { isClosed = true }
            } else if SSL_get_error(ssl, count) != SSL_ERROR_WANT_READ {
                ERR_clear_error()
                isClosed = true
            }
        }
    }

    /// Writes `bytes` on the TLS connection as they are (for HTTP/1.1).
    func writeRaw(_ bytes: [UInt8]) -> Bool {
        bytes.isEmpty || SSL_write(ssl, bytes, Int32(bytes.count)) == Int32(bytes.count)
    }

    /// Reads what arrives until `complete` says the bytes so far are whole,
    /// the server closes, or `timeout` passes (for HTTP/1.1).
    func readRaw(until complete: ([UInt8]) -> Bool, timeout: Duration = .seconds(5)) -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !complete(received), ContinuousClock.now < deadline {
            let count = SSL_read(ssl, &buffer, Int32(buffer.count))
            if count > 0 {
                received += buffer.prefix(Int(count))
            } else if SSL_get_error(ssl, count) != SSL_ERROR_WANT_READ {
                ERR_clear_error()
                isClosed = true
                break
            }
        }
        return received
    }

    /// Reads until the server closes the connection (or `timeout`).
    func waitForClose(timeout: Duration = .seconds(5)) -> Bool {
        if session == nil {
            let deadline = ContinuousClock.now + timeout
            var buffer = [UInt8](repeating: 0, count: 1024)
            while ContinuousClock.now < deadline {
                let count = SSL_read(ssl, &buffer, Int32(buffer.count))
                if count <= 0, SSL_get_error(ssl, count) != SSL_ERROR_WANT_READ {
                    ERR_clear_error()
                    return true
                }
            }
            return false
        }
        pump(until: { false }, timeout: timeout)
        return isClosed
    }

    private func flush() {
        guard let session else { return }
        while true {
            var data: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &data)
            guard length > 0, let data else { return }
            if writeFailed || SSL_write(ssl, data, Int32(length)) <= 0 {
                // The server may have closed; keep reading what it sent before.
                ERR_clear_error()
                writeFailed = true
                return
            }
        }
    }
}

/// `nghttp2_nv` over one buffer that lives for the submit call (nghttp2 copies).
private func withHeaderBlock<T>(_ fields: [(String, String)], _ body: (UnsafePointer<nghttp2_nv>, Int) -> T) -> T {
    var storage: [UInt8] = []
    var offsets: [(Int, Int, Int, Int)] = []
    for (name, value) in fields {
        let nameStart = storage.count
        storage += Array(name.utf8)
        let valueStart = storage.count
        storage += Array(value.utf8)
        offsets.append((nameStart, name.utf8.count, valueStart, value.utf8.count))
    }
    return storage.withUnsafeMutableBufferPointer { buffer in
        let headers = offsets.map {
            nghttp2_nv(name: buffer.baseAddress! + $0.0, value: buffer.baseAddress! + $0.2, namelen: $0.1, valuelen: $0.3, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
        }
        return headers.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
    }
}

// MARK: - Fixture

/// A running simulator with one registered key, and request builders.
final class SimTestFixture {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static let topic = "com.example.chat"
    static let token = String(repeating: "a1b2", count: 16)

    let key: SimTestKey
    let simulator: APNsSimulator

    init(_ configure: (inout APNsSimulatorConfiguration) -> Void = { _ in }) throws {
        key = try SimTestKey()
        var configuration = APNsSimulatorConfiguration(
            teamID: Self.teamID,
            keys: [Self.keyID: key.publicKeyPEM],
            topics: [Self.topic]
        )
        configure(&configuration)
        simulator = try APNsSimulator(configuration: configuration)
        try simulator.start()
    }

    func client(alpn: [String] = ["h2"], host: String = "localhost") throws -> SimTestClient {
        try SimTestClient(port: simulator.port, caPEM: simulator.caPEM, host: host, alpn: alpn)
    }

    /// A token minted now, reused like a real provider reuses its token.
    private(set) lazy var currentJWT = jwt(issuedAt: simNowSeconds())

    func jwt(issuedAt: Int) -> String {
        key.jwt(keyID: Self.keyID, teamID: Self.teamID, issuedAt: issuedAt)
    }

    /// A valid notification request; `headers` replace or add fields (a nil value removes one).
    func request(
        token: String = SimTestFixture.token,
        headers: [String: String?] = [:],
        body: [UInt8] = Array(#"{"aps":{"alert":{"title":"Hi","body":"there"}}}"#.utf8),
        jwt: String? = nil
    ) -> SimTestRequest {
        var fields: [(String, String)] = [
            ("authorization", "bearer \(jwt ?? currentJWT)"),
            ("apns-topic", Self.topic),
            ("apns-push-type", "alert"),
            ("apns-priority", "10"),
        ]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            fields.removeAll { $0.0 == name }
            if let value { fields.append((name, value)) }
        }
        return SimTestRequest(path: "/3/device/\(token)", headers: fields, body: body)
    }
}

// MARK: - Tests

final class APNsSimulatorTests: XCTestCase {
    func testValidRequestIsAcceptedWithItsApnsIDEchoed() throws {
        let fixture = try SimTestFixture()
        let client = try fixture.client()
        XCTAssertEqual(client.negotiatedProtocol, "h2")
        let apnsID = "6f1c2a4e-0b3d-4e5f-8a9b-0c1d2e3f4a5b"
        let response = client.send(fixture.request(headers: ["apns-id": apnsID, "apns-collapse-id": "conv-1", "apns-expiration": "1900000000"]))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.apnsID, apnsID)
        XCTAssertEqual(response.body, [])

        let statistics = fixture.simulator.statistics
        XCTAssertEqual(statistics.acceptedTotal, 1)
        XCTAssertEqual(statistics.acceptedIDs, [apnsID])
        XCTAssertEqual(statistics.acceptedPerToken[SimTestFixture.token], 1)
        XCTAssertEqual(statistics.connectionsAccepted, 1)
        let notification = try XCTUnwrap(statistics.notifications.first)
        XCTAssertEqual(notification.topic, SimTestFixture.topic)
        XCTAssertEqual(notification.collapseID, "conv-1")
        XCTAssertEqual(notification.expiration, 1_900_000_000)
        XCTAssertEqual(notification.priority, 10)
        XCTAssertEqual(notification.pushType, "alert")
        XCTAssertTrue(notification.apnsIDWasSent)
        XCTAssertEqual(String(decoding: notification.payload, as: UTF8.self), #"{"aps":{"alert":{"title":"Hi","body":"there"}}}"#)
    }

    func testAbsentApnsIDIsAnsweredWithAGeneratedLowercaseUUID() throws {
        let fixture = try SimTestFixture()
        let response = try fixture.client().send(fixture.request())
        XCTAssertEqual(response.status, 200)
        let apnsID = try XCTUnwrap(response.apnsID)
        XCTAssertNotNil(apnsID.range(of: "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", options: .regularExpression), apnsID)
        XCTAssertEqual(fixture.simulator.statistics.notifications.first?.apnsIDWasSent, false)
    }

    func testMalformedDeviceTokensAreBadDeviceToken() throws {
        let fixture = try SimTestFixture()
        let client = try fixture.client()
        let responses = client.send([
            fixture.request(token: String(repeating: "zz", count: 32)),  // not hex
            fixture.request(token: String(repeating: "ab", count: 16)),  // too short
            fixture.request(token: String(repeating: "a", count: 65)),  // odd length
        ])
        for response in responses {
            XCTAssertEqual(response.status, 400)
            XCTAssertEqual(response.reason, "BadDeviceToken")
            XCTAssertNotNil(response.apnsID)
        }
        XCTAssertEqual(fixture.simulator.statistics.rejectedPerReason["BadDeviceToken"], 3)
        XCTAssertEqual(fixture.simulator.statistics.acceptedTotal, 0)
    }

    func testMissingTopicIsRejected() throws {
        let fixture = try SimTestFixture()
        let response = try fixture.client().send(fixture.request(headers: ["apns-topic": nil]))
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.reason, "MissingTopic")
    }

    func testPayloadOf4097BytesIsTooLargeAnd4096Fits() throws {
        let fixture = try SimTestFixture()
        func payload(size: Int) -> [UInt8] {
            let prefix = #"{"aps":{},"pad":""#
            let suffix = #""}"#
            return Array((prefix + String(repeating: "x", count: size - prefix.utf8.count - suffix.utf8.count) + suffix).utf8)
        }
        let responses = try fixture.client().send([
            fixture.request(body: payload(size: 4097)),
            fixture.request(body: payload(size: 4096)),
        ])
        XCTAssertEqual(responses[0].status, 413)
        XCTAssertEqual(responses[0].reason, "PayloadTooLarge")
        XCTAssertEqual(responses[1].status, 200)
    }

    func testTokenSignedWithAnotherKeyIsInvalidProviderToken() throws {
        let fixture = try SimTestFixture()
        let stranger = try SimTestKey()
        let forged = stranger.jwt(keyID: SimTestFixture.keyID, teamID: SimTestFixture.teamID, issuedAt: simNowSeconds())
        let response = try fixture.client().send(fixture.request(jwt: forged))
        XCTAssertEqual(response.status, 403)
        XCTAssertEqual(response.reason, "InvalidProviderToken")
    }

    func testMalformedOrForeignTokensAreInvalidProviderToken() throws {
        let fixture = try SimTestFixture()
        let now = simNowSeconds()
        let valid = fixture.currentJWT
        let parts = valid.split(separator: ".")
        let tokens = [
            fixture.key.jwt(keyID: "UNKNOWNKEY", teamID: SimTestFixture.teamID, issuedAt: now),
            fixture.key.jwt(keyID: SimTestFixture.keyID, teamID: "OTHERTEAM1", issuedAt: now),
            fixture.key.jwt(keyID: SimTestFixture.keyID, teamID: SimTestFixture.teamID, issuedAt: now, algorithm: "ES384"),
            fixture.key.jwt(keyID: SimTestFixture.keyID, teamID: SimTestFixture.teamID, issuedAt: now + 3600),
            "\(parts[0]).\(parts[1])",
            "\(parts[0]).\(parts[1]).\(parts[2].dropLast(2))",
        ]
        for token in tokens {
            // A fresh connection each: a connection remembers its first key.
            let response = try fixture.client().send(fixture.request(jwt: token))
            XCTAssertEqual(response.status, 403, token)
            XCTAssertEqual(response.reason, "InvalidProviderToken", token)
        }
    }

    func testMissingAuthorizationIsMissingProviderToken() throws {
        let fixture = try SimTestFixture()
        let response = try fixture.client().send(fixture.request(headers: ["authorization": nil]))
        XCTAssertEqual(response.status, 403)
        XCTAssertEqual(response.reason, "MissingProviderToken")
    }

    func testTokenOlderThanAnHourIsExpiredProviderToken() throws {
        let fixture = try SimTestFixture()
        let response = try fixture.client().send(fixture.request(jwt: fixture.jwt(issuedAt: simNowSeconds() - 3601)))
        XCTAssertEqual(response.status, 403)
        XCTAssertEqual(response.reason, "ExpiredProviderToken")
    }

    func testNewTokenWithinTwentyMinutesOnOneConnectionIsTooManyProviderTokenUpdates() throws {
        let clock = TestClock(epochSeconds: Int64(simNowSeconds()))
        let fixture = try SimTestFixture { $0.clock = { Double(clock.epochSeconds) } }
        let client = try fixture.client()
        let first = fixture.jwt(issuedAt: Int(clock.epochSeconds))
        XCTAssertEqual(client.send(fixture.request(jwt: first)).status, 200)

        clock.advance(by: .seconds(60))
        let second = fixture.jwt(issuedAt: Int(clock.epochSeconds))
        let refused = client.send(fixture.request(jwt: second))
        XCTAssertEqual(refused.status, 429)
        XCTAssertEqual(refused.reason, "TooManyProviderTokenUpdates")
        XCTAssertEqual(client.send(fixture.request(jwt: first)).status, 200, "the first token stays in use")
        XCTAssertEqual(try fixture.client().send(fixture.request(jwt: second)).status, 200, "another connection may use it")

        clock.advance(by: .seconds(1200))
        XCTAssertEqual(client.send(fixture.request(jwt: second)).status, 200)
    }

    func testScriptedUnregisteredCarriesTheTimestampThenTheTokenIsAcceptedAgain() throws {
        let fixture = try SimTestFixture()
        fixture.simulator.script(token: SimTestFixture.token, responses: [.unregistered(timestampMilliseconds: 1_700_000_000_123)])
        let client = try fixture.client()
        let gone = client.send(fixture.request())
        XCTAssertEqual(gone.status, 410)
        XCTAssertEqual(gone.reason, "Unregistered")
        XCTAssertEqual((gone.json?["timestamp"] as? NSNumber)?.int64Value, 1_700_000_000_123)
        XCTAssertEqual(String(decoding: gone.body, as: UTF8.self), #"{"reason":"Unregistered","timestamp":1700000000123}"#)
        XCTAssertEqual(client.send(fixture.request()).status, 200)
        XCTAssertEqual(fixture.simulator.statistics.rejectedPerReason["Unregistered"], 1)
        XCTAssertEqual(fixture.simulator.statistics.acceptedTotal, 1)
    }

    func testClientThatDoesNotOfferH2IsRefusedInTheHandshake() throws {
        let fixture = try SimTestFixture()
        XCTAssertThrowsError(try fixture.client(alpn: ["http/1.1"])) { error in
            guard case SimTestClientError.handshake(let text) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(text.contains("no application protocol"), text)
        }
        try blockUntil("the simulator counts the refused connection") { fixture.simulator.statistics.connectionsRefused == 1 }
    }

    func testClientWithoutALPNIsClosedAfterTheHandshake() throws {
        let fixture = try SimTestFixture()
        let client = try fixture.client(alpn: [])
        XCTAssertNil(client.negotiatedProtocol)
        XCTAssertTrue(client.waitForClose())
        try blockUntil("the simulator counts the refused connection") { fixture.simulator.statistics.connectionsRefused == 1 }
    }

    func testCertificateNamesBothLocalhostAnd127001() throws {
        let fixture = try SimTestFixture()
        XCTAssertEqual(try fixture.client(host: "127.0.0.1").send(fixture.request()).status, 200)
        XCTAssertEqual(try fixture.client(host: "localhost").send(fixture.request()).status, 200)
        XCTAssertThrowsError(try fixture.client(host: "example.com"))
        XCTAssertThrowsError(try SimTestClient(port: fixture.simulator.port, caPEM: ThrowawayPKI().caPEM))
    }

    func testEveryHeaderRuleAnswersApplesReason() throws {
        let fixture = try SimTestFixture { $0.registeredDevices = [String(repeating: "cd", count: 32): "com.example.other"] }
        let client = try fixture.client()
        var get = fixture.request()
        get.method = "GET"
        get.body = []
        var badPath = fixture.request()
        badPath.path = "/3/devices/\(SimTestFixture.token)"
        var noToken = fixture.request()
        noToken.path = "/3/device/"
        var duplicated = fixture.request()
        duplicated.headers.append(("apns-topic", SimTestFixture.topic))
        let cases: [(SimTestRequest, Int, String)] = [
            (get, 405, "MethodNotAllowed"),
            (badPath, 404, "BadPath"),
            (noToken, 400, "MissingDeviceToken"),
            (duplicated, 400, "DuplicateHeaders"),
            (fixture.request(headers: ["apns-topic": "com.example.unknown"]), 400, "BadTopic"),
            (fixture.request(token: String(repeating: "cd", count: 32)), 400, "DeviceTokenNotForTopic"),
            (fixture.request(headers: ["apns-push-type": "shout"]), 400, "InvalidPushType"),
            (fixture.request(headers: ["apns-priority": "7"]), 400, "BadPriority"),
            (fixture.request(headers: ["apns-push-type": "background", "apns-priority": "10"]), 400, "BadPriority"),
            (fixture.request(headers: ["apns-id": "6F1C2A4E-0B3D-4E5F-8A9B-0C1D2E3F4A5B"]), 400, "BadMessageId"),
            (fixture.request(headers: ["apns-id": "not-a-uuid"]), 400, "BadMessageId"),
            (fixture.request(headers: ["apns-collapse-id": String(repeating: "c", count: 65)]), 400, "BadCollapseId"),
            (fixture.request(headers: ["apns-expiration": "tomorrow"]), 400, "BadExpirationDate"),
            (fixture.request(body: []), 400, "PayloadEmpty"),
            (fixture.request(body: Array(#"{"aps":"#.utf8)), 400, "PayloadEmpty"),
            (fixture.request(body: Array(#"[1,2]"#.utf8)), 400, "PayloadEmpty"),
            (fixture.request(body: Array(#"{"data":1}"#.utf8)), 400, "PayloadEmpty"),
        ]
        let responses = client.send(cases.map(\.0))
        for (response, expected) in zip(responses, cases) {
            XCTAssertEqual(response.status, expected.1, expected.2)
            XCTAssertEqual(response.reason, expected.2)
            XCTAssertNotNil(response.apnsID, expected.2)
        }
        let accepted = client.send([
            fixture.request(headers: ["apns-collapse-id": String(repeating: "c", count: 64), "apns-priority": "5"]),
            fixture.request(headers: ["apns-topic": SimTestFixture.topic + ".voip", "apns-push-type": "voip"],
                            body: Array((#"{"aps":{},"p":""# + String(repeating: "v", count: 5000) + #""}"#).utf8)),
            fixture.request(headers: ["apns-push-type": nil, "apns-priority": nil, "apns-expiration": "0"]),
        ])
        XCTAssertEqual(accepted.map(\.status), [200, 200, 200])
    }

    func testStopClosesConnectionsAndTheListeningSocket() throws {
        let fixture = try SimTestFixture()
        let client = try fixture.client()
        XCTAssertEqual(client.send(fixture.request()).status, 200)
        XCTAssertEqual(fixture.simulator.openConnections, 1)
        let port = fixture.simulator.port
        fixture.simulator.stop()
        XCTAssertTrue(client.waitForClose(timeout: .seconds(2)))
        XCTAssertEqual(fixture.simulator.openConnections, 0)
        XCTAssertThrowsError(try SimTestClient(port: port, caPEM: fixture.simulator.caPEM))
        fixture.simulator.stop()  // idempotent
    }

    func testThrowawayPKIWritesTheCAFile() throws {
        let pki = try ThrowawayPKI()
        XCTAssertTrue(pki.caPEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        XCTAssertTrue(pki.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let path = NSTemporaryDirectory() + "sim-ca-\(UUID().uuidString).pem"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try pki.writeCA(to: path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), pki.caPEM)
    }
}
