@testable import GatewayService
import TestSupport
import XCTest

/// `BearerTokens.authorizes` reads the header in place and compares the
/// scheme as ASCII without case; these check it against the rule it
/// replaced (the first seven bytes decoded, lowercased as a string, equal
/// to `bearer `) and that no other character could lowercase into it.
final class BearerTokensTests: XCTestCase {
    /// The rule as it was written before: a string lowercased.
    private func lowercasedRule(_ bytes: [UInt8]) -> Bool {
        bytes.count > 7 && String(decoding: bytes.prefix(7), as: UTF8.self).lowercased() == "bearer "
    }

    private func fastRule(_ bytes: [UInt8]) -> Bool {
        bytes.count > 7 && BearerTokens.startsWithBearerScheme(bytes.span)
    }

    func testNoOtherCharacterLowercasesIntoTheScheme() {
        // A character that lowercases to ASCII made only of `b`, `e`, `a`,
        // `r` and space would match a lowercased prefix but not the ASCII rule.
        let schemeScalars = Set("bear ".unicodeScalars)
        for value in 0x80...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), scalar.properties.changesWhenLowercased else { continue }
            let lowered = String(scalar).lowercased().unicodeScalars
            XCTAssertFalse(lowered.allSatisfy { schemeScalars.contains($0) }, "U+\(String(value, radix: 16))")
        }
    }

    func testAgreesWithTheLowercasedRule() {
        let scheme = Array("bearer ".utf8)
        var cases: [[UInt8]] = []
        // Every mix of cases, every byte at every position of the scheme.
        for mask in 0..<128 {
            cases.append(scheme.enumerated().map { mask >> $0.offset & 1 == 1 ? $0.element & ~0x20 : $0.element } + [0x41])
        }
        for position in 0..<7 {
            for byte in 0...255 {
                var bytes = scheme + Array("tok".utf8)
                bytes[position] = UInt8(byte)
                cases.append(bytes)
            }
        }
        // Non-ASCII look-alikes and short headers.
        for text in ["\u{212A}earer x", "BEARER\u{A0}x", "bearer", "bearer ", "Bearer x", "İearer x", "ʙearer x", ""] {
            cases.append(Array(text.utf8))
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            let length = Int.random(in: 0...12, using: &generator)
            cases.append((0..<length).map { _ in
                [UInt8(ascii: "b"), UInt8(ascii: "E"), 0x20, 0xC4, 0xB0, 0xE2, 0x84, 0xAA, 0x41]
                    .randomElement(using: &generator)! })
        }
        for bytes in cases {
            XCTAssertEqual(fastRule(bytes), lowercasedRule(bytes), "\(bytes)")
        }
    }

    func testAuthorizesOnlyAConfiguredToken() {
        let tokens = BearerTokens(["s3cr3t", "", "other-token"])
        XCTAssertTrue(tokens.authorizes("Bearer s3cr3t"))
        XCTAssertTrue(tokens.authorizes("bEARER other-token"))
        XCTAssertFalse(tokens.authorizes(nil))
        XCTAssertFalse(tokens.authorizes("Bearer "))
        XCTAssertFalse(tokens.authorizes("Bearer s3cr3"))
        XCTAssertFalse(tokens.authorizes("Bearer s3cr3tt"))
        XCTAssertFalse(tokens.authorizes("Bearer  "))
        XCTAssertFalse(tokens.authorizes("Bearer \t"))
        XCTAssertFalse(tokens.authorizes("Bearer s3 cr3t"))
        XCTAssertFalse(tokens.authorizes("Basic s3cr3t"))
        XCTAssertFalse(tokens.authorizes("s3cr3t"))
        XCTAssertFalse(BearerTokens([]).authorizes("Bearer "))
        // A header decoded from bytes (not a literal) is read the same way.
        let decoded = String(decoding: Array("Bearer other-token".utf8), as: UTF8.self)
        XCTAssertTrue(tokens.authorizes(decoded))
    }

    /// `Bearer` 1*SP token (RFC 6750 §2.1), and whitespace around a field
    /// value is not part of it (RFC 9110 §5.5): a client or proxy that pads
    /// the header is not refused.
    func testSpacesAfterTheSchemeAndAroundTheTokenAreNotPartOfIt() {
        let tokens = BearerTokens(["s3cr3t"])
        for header in ["Bearer  s3cr3t", "Bearer s3cr3t ", "Bearer s3cr3t\t", "Bearer   s3cr3t \t "] {
            XCTAssertTrue(tokens.authorizes(header), header.debugDescription)
        }
        XCTAssertFalse(tokens.authorizes("Bearer\ts3cr3t"), "the scheme is followed by a space")
        XCTAssertFalse(tokens.authorizes("Bearer s3cr3t x"))
    }

    /// A token followed by more bytes is refused whatever their number: the
    /// length difference was folded into one byte, so 256 × k extra bytes
    /// passed.
    func testATokenFollowedByAnyNumberOfExtraBytesIsRefused() {
        let tokens = BearerTokens(["s3cr3t"])
        for extra in [1, 255, 256, 512, 65_536] {
            XCTAssertFalse(tokens.authorizes("Bearer s3cr3t" + String(repeating: "X", count: extra)), "\(extra) extra bytes")
        }
        XCTAssertFalse(tokens.authorizes("Bearer s3cr3t" + String(repeating: "\u{0}", count: 256)))
        XCTAssertTrue(tokens.authorizes("Bearer s3cr3t"))
    }

    /// The word-at-a-time comparison against byte equality: every length
    /// pair up to 20 bytes (around the 8-byte words), equal or differing in
    /// one byte at each position, and random pairs (fixed seed).
    func testConstantTimeEqualAgreesWithByteEquality() {
        func check(_ lhs: [UInt8], _ rhs: [UInt8]) {
            let fast = BearerTokens.constantTimeEqual(lhs.span, rhs.span)
            XCTAssertEqual(fast, lhs == rhs, "\(lhs) \(rhs)")
        }
        var generator = SplitMix64(seed: 0xBEA2_E2)  // the same bytes every run
        for rightCount in 0...20 {
            let right = generator.bytes(rightCount)
            for leftCount in 0...20 {
                // A prefix of the token, the token, or the token and more.
                let left = Array((right + generator.bytes(20)).prefix(leftCount))
                check(left, right)
            }
            for position in right.indices {
                var left = right
                left[position] ^= UInt8(1 << (position % 8))
                check(left, right)
            }
        }
        for _ in 0..<2000 {
            let right = generator.bytes(Int.random(in: 0...80, using: &generator))
            var left = right
            if Bool.random(using: &generator), !left.isEmpty { left[Int.random(in: left.indices, using: &generator)] &+= 1 }
            if Bool.random(using: &generator) { left = Array(left.prefix(Int.random(in: 0...left.count, using: &generator))) }
            check(left, right)
        }
    }
}
