import Foundation
import GatewayService
import XCTest

/// L4: a file that cannot be read says why.
final class FileReaderTests: XCTestCase {
    func testAFileThatCannotBeReadSaysWhy() throws {
        XCTAssertThrowsError(try FileReader.read("/nonexistent/pushgw-tokens")) { XCTAssertEqual($0 as? FileReadError, .noSuchFile) }
        XCTAssertThrowsError(try FileReader.read(NSTemporaryDirectory())) { XCTAssertEqual($0 as? FileReadError, .isADirectory) }
        let path = NSTemporaryDirectory() + "pushgw-unreadable-\(UUID().uuidString)"
        try Data("0123456789abcdef0123\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertEqual(try FileReader.read(path), Array("0123456789abcdef0123\n".utf8))
        chmod(path, 0)
        if getuid() != 0 {
            XCTAssertThrowsError(try FileReader.read(path)) { XCTAssertEqual($0 as? FileReadError, .permissionDenied) }
        }
    }

    func testTheLoaderNamesTheSettingThePathAndTheReason() {
        XCTAssertThrowsError(try ConfigurationLoader(environment: ["PUSHGW_BEARER_TOKENS_FILE": NSTemporaryDirectory()]).load()) { error in
            XCTAssertEqual((error as? ServiceError)?.setting, "PUSHGW_BEARER_TOKENS_FILE")
            XCTAssertTrue("\(error)".hasSuffix(": is a directory"), "\(error)")
        }
    }

    /// `~/` is the home folder, as in a shell (regression: the path counted as one but was never expanded).
    func testATildePathIsReadFromTheHomeFolder() throws {
        guard let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty,
              FileManager.default.isWritableFile(atPath: home) else { throw XCTSkip("no writable HOME") }
        let name = "pushgw-filereader-\(UUID().uuidString).txt"
        let path = home + "/" + name
        try Data("from home".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertEqual(try FileReader.read("~/" + name), Array("from home".utf8))
    }
}
