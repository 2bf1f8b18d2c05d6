import Foundation
@testable import GatewayService
import XCTest

/// The avatar download settings (size, time, cache, threads, private
/// networks, CAs) from the environment and the file reach the resolver's
/// policy; a bad value is an error naming the setting. Files are served
/// from a dictionary, not the disk.
final class AvatarSettingsTests: XCTestCase {
    private let files: [String: [UInt8]] = [
        "/etc/ca.pem": Array("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n".utf8),
        "/etc/not-a-ca.pem": Array("hello\n".utf8),
    ]
    /// The file's relative `../ca.pem`, as the loader resolves it.
    private static let relativeCA = "/etc/pushgw/../ca.pem"

    private func load(_ environment: [String: String], file: String? = nil) throws(ServiceError) -> GatewayConfiguration {
        var files = files
        var environment = environment
        if let file {
            files["/etc/pushgw/config.json"] = Array(file.utf8)
            files[Self.relativeCA] = files["/etc/ca.pem"]
            environment["PUSHGW_CONFIG_FILE"] = "/etc/pushgw/config.json"
        }
        return try ConfigurationLoader(environment: environment, files: files).load()
    }

    private func expectError(_ environment: [String: String], file: String? = nil, setting: String,
                             line: UInt = #line) {
        do {
            _ = try load(environment, file: file)
            XCTFail("expected an error about \(setting)", line: line)
        } catch {
            XCTAssertEqual(error.setting, setting, "\(error)", line: line)
            XCTAssertFalse(error.message.isEmpty, line: line)
        }
    }

    func testUnsetSettingsKeepThePolicysSafeDefaults() throws {
        XCTAssertEqual(try load([:]).avatar.policy, AvatarPolicy())
    }

    func testTheEnvironmentSetsTheResolversPolicy() throws {
        let policy = try load([
            "PUSHGW_AVATAR_MAX_KB": "256", "PUSHGW_AVATAR_TIMEOUT_MS": "1500", "PUSHGW_AVATAR_CACHE_ENTRIES": "0",
            "PUSHGW_AVATAR_CACHE_SECONDS": "30", "PUSHGW_AVATAR_FETCH_THREADS": "8",
            "PUSHGW_AVATAR_PRIVATE_NETWORKS": "10.20.0.0/16, fd12:3456::/48,192.168.1.7",
            "PUSHGW_AVATAR_CA_FILE": "/etc/ca.pem",
        ]).avatar.policy
        XCTAssertEqual(policy.maxBytes, 256 * 1024)
        XCTAssertEqual(policy.totalTimeout, .milliseconds(1500))
        XCTAssertEqual(policy.connectTimeout, .milliseconds(1500), "a connection never gets longer than the whole download")
        XCTAssertEqual(policy.cacheCapacity, 0)
        XCTAssertEqual(policy.cacheTTL, .seconds(30))
        XCTAssertEqual(policy.negativeCacheTTL, .seconds(30), "a refusal is not remembered longer than a success")
        XCTAssertEqual(policy.maxConcurrentFetches, 8)
        XCTAssertEqual(policy.privateAddressExceptions.map(\.description), ["10.20.0.0/16", "fd12:3456::/48", "192.168.1.7/32"])
        XCTAssertEqual(policy.caBundlePath, "/etc/ca.pem")
        XCTAssertFalse(policy.allowPrivateAddresses, "an exception admits its networks, not every private address")
        XCTAssertTrue(policy.admits(AvatarIPAddress(literal: "10.20.3.4")!))
        XCTAssertFalse(policy.admits(AvatarIPAddress(literal: "10.21.3.4")!))
    }

    func testTheFileSetsThemAndTheEnvironmentOverridesIt() throws {
        let file = """
            {"avatar": {"max_kb": 64, "timeout_ms": 5000, "cache_entries": 10, "cache_seconds": 120, "fetch_threads": 2,
                        "private_networks": ["10.0.0.0/8"], "ca_file": "../ca.pem"}}
            """
        let fromFile = try load([:], file: file).avatar.policy
        XCTAssertEqual(fromFile.maxBytes, 64 * 1024)
        XCTAssertEqual(fromFile.totalTimeout, .seconds(5))
        XCTAssertEqual(fromFile.connectTimeout, AvatarPolicy().connectTimeout)
        XCTAssertEqual(fromFile.cacheCapacity, 10)
        XCTAssertEqual(fromFile.cacheTTL, .seconds(120))
        XCTAssertEqual(fromFile.negativeCacheTTL, AvatarPolicy().negativeCacheTTL)
        XCTAssertEqual(fromFile.maxConcurrentFetches, 2)
        XCTAssertEqual(fromFile.privateAddressExceptions.map(\.description), ["10.0.0.0/8"])
        XCTAssertEqual(fromFile.caBundlePath, Self.relativeCA, "relative to the file's folder")

        let overridden = try load(["PUSHGW_AVATAR_MAX_KB": "2048", "PUSHGW_AVATAR_PRIVATE_NETWORKS": "172.16.0.0/12"],
                                  file: file).avatar.policy
        XCTAssertEqual(overridden.maxBytes, 2048 * 1024)
        XCTAssertEqual(overridden.privateAddressExceptions.map(\.description), ["172.16.0.0/12"])
        XCTAssertEqual(overridden.totalTimeout, .seconds(5), "the file's other settings stay")
    }

    func testOutOfRangeNumbersNameTheirSetting() {
        for (name, bad) in [("PUSHGW_AVATAR_MAX_KB", "0"), ("PUSHGW_AVATAR_MAX_KB", "16385"), ("PUSHGW_AVATAR_TIMEOUT_MS", "99"),
                            ("PUSHGW_AVATAR_TIMEOUT_MS", "3s"), ("PUSHGW_AVATAR_CACHE_ENTRIES", "-1"),
                            ("PUSHGW_AVATAR_CACHE_SECONDS", "0"), ("PUSHGW_AVATAR_FETCH_THREADS", "65")] {
            expectError([name: bad], setting: name)
        }
        for (key, bad) in [("max_kb", "0"), ("timeout_ms", "\"3000\""), ("fetch_threads", "0"), ("cache_seconds", "1.5")] {
            expectError([:], file: #"{"avatar": {"\#(key)": \#(bad)}}"#, setting: "avatar.\(key)")
        }
    }

    func testPrivateNetworksAreCheckedEntryByEntry() {
        for bad in [",", "10.0.0.0/8,", "10.0.0.0/33", "fd12::/129", "10.0.0/8", "[fd12::1]", "cdn.internal", "10.20.1.0/16",
                    "10.0.0.0/8/8", "fd12:3456::1/48"] {
            expectError(["PUSHGW_AVATAR_PRIVATE_NETWORKS": bad], setting: "PUSHGW_AVATAR_PRIVATE_NETWORKS")
        }
        for bad in ["[]", #"[""]"#, #"["10.20.1.0/16"]"#, #""10.0.0.0/8""#] {
            expectError([:], file: #"{"avatar": {"private_networks": \#(bad)}}"#, setting: "avatar.private_networks")
        }
        do {
            _ = try load(["PUSHGW_AVATAR_PRIVATE_NETWORKS": "10.20.1.0/16"])
        } catch {
            XCTAssertTrue(error.message.contains("10.20.0.0/16"), "names the network the entry would admit: \(error)")
        }
    }

    func testTheCAFileMustHoldACertificate() {
        expectError(["PUSHGW_AVATAR_CA_FILE": "/etc/not-a-ca.pem"], setting: "PUSHGW_AVATAR_CA_FILE")
        expectError(["PUSHGW_AVATAR_CA_FILE": "/etc/missing.pem"], setting: "PUSHGW_AVATAR_CA_FILE")
        expectError([:], file: #"{"avatar": {"ca_file": "/etc/not-a-ca.pem"}}"#, setting: "avatar.ca_file")
    }
}
