import Foundation
import WebPush
import XCTest

/// `pushgw vapid-keys`, run as the built binary: a new key pair each time,
/// printed in forms that load back as the same key.
final class VAPIDKeysCommandTests: XCTestCase {
    func testTheTextOutputHoldsOneKeyInBothPrivateFormsAndItsPublicKey() throws {
        let (status, output) = try VersionCommandTests.runPushgw(["vapid-keys"])
        XCTAssertEqual(status, 0, output)
        let lines = output.split(separator: "\n").map(String.init)
        let pemStart = try XCTUnwrap(lines.firstIndex(of: "-----BEGIN PRIVATE KEY-----"), output)
        let pemEnd = try XCTUnwrap(lines.firstIndex(of: "-----END PRIVATE KEY-----"), output)
        let pem = lines[pemStart...pemEnd].joined(separator: "\n") + "\n"
        let uncommented = lines.filter { !$0.hasPrefix("#") && !$0.hasPrefix("-----") && !lines[pemStart...pemEnd].contains($0) }
        XCTAssertEqual(uncommented.count, 2, output)
        let (raw, publicKey) = (uncommented[0], uncommented[1])
        XCTAssertEqual(raw.count, 43)
        XCTAssertEqual(publicKey.count, 87)
        XCTAssertEqual(try VAPIDKey(configurationValue: pem).publicKeyBase64URL, publicKey)
        XCTAssertEqual(try VAPIDKey(configurationValue: raw).publicKeyBase64URL, publicKey)
        XCTAssertTrue(output.contains("applicationServerKey"), output)
    }

    func testTheJSONOutputAndFreshKeysEachRun() throws {
        var publicKeys: Set<String> = []
        for _ in 0..<2 {
            let (status, output) = try VersionCommandTests.runPushgw(["vapid-keys", "--json"])
            XCTAssertEqual(status, 0, output)
            let fields = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String], output)
            XCTAssertEqual(Set(fields.keys), ["private_key_pem", "private_key", "public_key"])
            let key = try VAPIDKey(configurationValue: XCTUnwrap(fields["private_key"]))
            XCTAssertEqual(key.publicKeyBase64URL, fields["public_key"])
            XCTAssertEqual(try VAPIDKey(configurationValue: XCTUnwrap(fields["private_key_pem"])).publicKey, key.publicKey)
            publicKeys.insert(key.publicKeyBase64URL)
        }
        XCTAssertEqual(publicKeys.count, 2, "each run makes a new pair")
    }

    func testHelpAndUnknownArguments() throws {
        let (status, help) = try VersionCommandTests.runPushgw(["vapid-keys", "--help"])
        XCTAssertEqual(status, 0)
        XCTAssertTrue(help.hasPrefix("usage: pushgw vapid-keys"), help)
        XCTAssertTrue(help.contains("applicationServerKey"), help)
        let (mainStatus, mainHelp) = try VersionCommandTests.runPushgw(["--help"])
        XCTAssertEqual(mainStatus, 0)
        XCTAssertTrue(mainHelp.contains("pushgw vapid-keys"), "pushgw --help names the command")
        let (unknownStatus, unknownOutput) = try VersionCommandTests.runPushgw(["vapid-keys", "--pem-only"])
        XCTAssertEqual(unknownStatus, 2)
        XCTAssertEqual(unknownOutput, "", "the error goes to standard error")
    }
}
