@testable import GatewayService
@testable import GatewayHTTP
import PayloadBuilder
import Synchronization
import XCTest
import PushGWSync
import TestSupport

/// Small images for the tests, written here byte by byte.
///
/// PNG and GIF are complete, decodable 1×1 images; JPEG and WebP are
/// signature-true (the resolver judges the first bytes, never decodes) with
/// a deterministic filler.
enum AvatarFixtures {
    /// A 1×1 RGB PNG (IHDR, one zlib-compressed IDAT, IEND).
    static let png: [UInt8] = [
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
        0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x30, 0x4e, 0x3b, 0x03,
        0x00, 0x02, 0x35, 0x01, 0x66, 0xb4, 0x6f, 0x97, 0x9e, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
        0x44, 0xae, 0x42, 0x60, 0x82,
    ]
    /// `png`'s SHA-256 as computed by Python's hashlib, independently of our digest.
    static let pngSHA256 = "429be16d0a91e377d16cd9f57f84b94b5d2b32804321e8fab7eef752bf6020de"

    /// A 1×1 GIF89a: two-colour table, graphic control extension, one LZW-coded pixel.
    static let gif: [UInt8] = Array("GIF89a".utf8) + [
        0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff,
        0x21, 0xf9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00,
        0x2c, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3b,
    ]

    /// SOI, a JFIF APP0 segment, filler, EOI.
    static let jpeg: [UInt8] = [0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10] + Array("JFIF".utf8)
        + [0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00] + filler(300) + [0xff, 0xd9]

    /// A RIFF container of form type WEBP with one VP8L chunk of filler.
    static let webp: [UInt8] = {
        let payload = Array("VP8L".utf8) + littleEndian(UInt32(40)) + filler(40)
        return Array("RIFF".utf8) + littleEndian(UInt32(4 + payload.count)) + Array("WEBP".utf8) + payload
    }()

    /// An HTML page.
    static let html: [UInt8] = Array("<!doctype html><html><body>not an avatar</body></html>".utf8)

    static func filler(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) } }

    private static func littleEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
}

/// A clock for cache expiry that only moves when told to.
final class AvatarTestClock: Sendable {
    private let origin = ContinuousClock.now
    private let offset = Locked(Duration.zero)

    var now: ContinuousClock.Instant { origin + offset.withLock { $0 } }

    func advance(by duration: Duration) { offset.withLock { $0 += duration } }
}

/// A resolver wired to a test clock and a registry of its own.
struct AvatarTestRig {
    let resolver: AvatarResolver
    let clock = AvatarTestClock()
    /// Declared as the gateway declares it, so that its exposition names the labels.
    let metrics = GatewayMetrics().registry

    init(_ policy: AvatarPolicy) {
        let clock = self.clock
        resolver = AvatarResolver(policy: policy, now: { clock.now }, metrics: metrics)
    }

    /// `pushgw_avatar_fetch_total` by `result` label, the labels counted so far.
    var counts: [String: Int] {
        var counts: [String: Int] = [:]
        let prefix = GatewayMetrics.avatarFetch.name + "{result=\""
        for line in metrics.exposition().split(separator: "\n") where line.hasPrefix(prefix) {
            let rest = line.dropFirst(prefix.count)
            guard let quote = rest.firstIndex(of: "\""), let value = Int(rest[rest.index(quote, offsetBy: 3)...]) else { continue }
            if value > 0 { counts[String(rest[..<quote])] = value }
        }
        return counts
    }
}

extension AvatarPolicy {
    /// What most tests use: the local server is plain HTTP on 127.0.0.1.
    static let localTesting = AvatarPolicy(allowHTTP: true, allowPrivateAddresses: true)
}

extension XCTestCase {
    /// A server that is stopped when the test ends.
    func startServer(address: String = "127.0.0.1", _ paths: [String: AvatarTestServer.Reply]) throws -> AvatarTestServer {
        let server = try AvatarTestServer(address: address, paths: paths)
        addTeardownBlock { server.stop() }
        return server
    }

    /// Asserts a drop with `reason`.
    func assertDropped(_ state: AvatarState, _ reason: AvatarDropReason, file: StaticString = #filePath, line: UInt = #line) {
        guard case let .dropped(_, actual) = state else {
            return XCTFail("expected dropped(\(reason)), got \(state)", file: file, line: line)
        }
        XCTAssertEqual(actual, reason.rawValue, file: file, line: line)
    }
}
