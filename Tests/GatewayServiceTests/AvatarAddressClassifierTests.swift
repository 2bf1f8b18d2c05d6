@testable import GatewayService
import XCTest

/// The address rules, without sockets: which literal addresses the default
/// policy refuses, in every notation libcurl or the resolver can meet.
final class AvatarAddressClassifierTests: XCTestCase {
    private func address(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> AvatarIPAddress {
        try XCTUnwrap(AvatarIPAddress(literal: text), "not an address: \(text)", file: file, line: line)
    }

    func testForbiddenAddressesAreRefusedByTheDefaultPolicy() throws {
        let forbidden = [
            "0.0.0.0", "10.1.2.3", "100.64.0.1", "100.127.255.254", "100.100.100.200", "127.0.0.1", "127.255.255.254",
            "169.254.169.254", "169.254.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "192.0.0.8",
            "198.18.0.1", "224.0.0.1", "239.255.255.250", "255.255.255.255", "240.0.0.1",
            "::", "::1", "[::1]", "::ffff:127.0.0.1", "[::ffff:127.0.0.1]", "::ffff:7f00:1", "0:0:0:0:0:ffff:10.0.0.1",
            "::ffff:169.254.169.254", "::127.0.0.1", "fd00:ec2::254", "fc00::1", "fe80::1", "fe80::1%eth0",
            "ff02::1", "2001:db8::1", "64:ff9b::10.0.0.1", "64:ff9b::7f00:1", "2002:7f00:1::1", "2001:0:4136:e378::1",
            "::ffff:0:7f00:1", "168.63.129.16", "::ffff:168.63.129.16",
        ]
        let policy = AvatarPolicy()
        for text in forbidden {
            XCTAssertFalse(policy.admits(try address(text)), text)
        }
    }

    func testPublicAddressesAreAdmitted() throws {
        let allowed = [
            "8.8.8.8", "1.1.1.1", "168.63.129.15", "168.63.129.17", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0", "192.169.0.1",
            "2606:4700:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:0808:0808::1",
        ]
        let policy = AvatarPolicy()
        for text in allowed {
            XCTAssertTrue(policy.admits(try address(text)), text)
        }
    }

    /// Allowing private addresses (tests, a private CDN) admits everything
    /// but the cloud metadata services: a redirect to 169.254.169.254 was
    /// followed with it on. Only an
    /// explicit exception admits one.
    func testAllowingPrivateAddressesAdmitsEverythingButMetadataServices() throws {
        let policy = AvatarPolicy(allowPrivateAddresses: true)
        for text in ["127.0.0.1", "::1", "10.0.0.1", "fd00:ec3::1", "fe80::1", "8.8.8.8", "fd20:ce::253", "fd00:42::43"] {
            XCTAssertTrue(policy.admits(try address(text)), text)
        }
        for text in ["169.254.169.254", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::1", "169.254.170.2",
                     "169.254.170.23", "::a9fe:a9fe", "::ffff:0:a9fe:a9fe", "168.63.129.16", "100.100.100.200",
                     "fd00:ec2::254", "fd00:ec2::23", "fd20:ce::254", "fd00:42::42", "fd00:c1::a9fe:a9fe",
                     "fe80::a9fe:a9fe"] {
            XCTAssertFalse(policy.admits(try address(text)), text)
        }
        let excepted = AvatarPolicy(allowPrivateAddresses: true,
                                    privateAddressExceptions: [try XCTUnwrap(AvatarAddressRange("169.254.169.254/32"))])
        XCTAssertTrue(excepted.admits(try address("169.254.169.254")))
    }

    func testExceptionsAdmitOnlyTheirNetworkAndApplyToMappedForms() throws {
        let exceptions = try ["10.20.0.0/16", "127.0.0.1/32", "fd12:3456::/32"].map { try XCTUnwrap(AvatarAddressRange($0)) }
        let policy = AvatarPolicy(privateAddressExceptions: exceptions)
        for text in ["10.20.0.1", "10.20.255.255", "127.0.0.1", "::ffff:127.0.0.1", "fd12:3456:1::1"] {
            XCTAssertTrue(policy.admits(try address(text)), text)
        }
        for text in ["10.21.0.1", "127.0.0.2", "::1", "fd12:3457::1", "169.254.169.254"] {
            XCTAssertFalse(policy.admits(try address(text)), text)
        }
    }

    func testAddressRangesParseCanonicaliseAndRejectNonsense() {
        XCTAssertEqual(AvatarAddressRange("10.20.30.40/16")?.description, "10.20.0.0/16")
        XCTAssertEqual(AvatarAddressRange("127.0.0.1")?.description, "127.0.0.1/32")
        XCTAssertEqual(AvatarAddressRange("FD00:EC2::254/32")?.description, "fd00:ec2::/32")
        XCTAssertEqual(AvatarAddressRange("::/0")?.description, "::/0")
        for bad in ["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0/8", "example.com/8", "[::1]/128", "10.0.0.0/8/8", "", "0x7f.1"] {
            XCTAssertNil(AvatarAddressRange(bad), bad)
        }
    }

    func testBuiltInTablesAreWellFormed() {
        XCTAssertEqual(AvatarAddressClassifier.forbiddenIPv4.count, 16)
        XCTAssertEqual(AvatarAddressClassifier.forbiddenIPv6.count, 11)
        XCTAssertTrue(AvatarAddressClassifier.forbiddenIPv4.allSatisfy { $0.network.isIPv4 })
        XCTAssertTrue(AvatarAddressClassifier.forbiddenIPv6.allSatisfy { !$0.network.isIPv4 })
    }
}
