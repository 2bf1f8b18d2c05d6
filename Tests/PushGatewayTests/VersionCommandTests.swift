import Foundation
import XCTest

/// `pushgw --version` and `--help`, run as the built `pushgw` binary that
/// sits beside this test executable (`swift build --build-tests` builds both).
final class VersionCommandTests: XCTestCase {
    func testVersionPrintsTheReleaseNumberAndTheCommitOnOneLine() throws {
        let (status, output) = try Self.runPushgw(["--version"])
        XCTAssertEqual(status, 0, output)
        // A stamped build names its commit (`-dirty` when the tree had
        // changes); any other build says `unknown`, never a guess.
        let pattern = try NSRegularExpression(pattern: #"\Apushgw [0-9]+\.[0-9]+\.[0-9]+ \(([0-9a-f]{7,40}(-dirty)?|unknown)\)\n\z"#)
        XCTAssertNotNil(pattern.firstMatch(in: output, range: NSRange(output.startIndex..., in: output)), output)
    }

    func testHelpNamesTheVersionOption() throws {
        let (status, output) = try Self.runPushgw(["--help"])
        XCTAssertEqual(status, 0)
        XCTAssertTrue(output.contains("pushgw --version"), output)
    }

    /// Runs the binary with `arguments` and answers its exit status and
    /// standard output.
    static func runPushgw(_ arguments: [String]) throws -> (Int32, String) {
        let testExecutable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let binary = URL(fileURLWithPath: testExecutable).deletingLastPathComponent().appendingPathComponent("pushgw")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: binary.path),
                      "no pushgw binary at \(binary.path): build it with swift build --build-tests")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
