import Foundation
import TestSupport
import XCTest

/// `scripts/webpush-interop.py`, run with the Python of the virtual
/// environment `scripts/install-deps` fills (http_ece, py_vapid,
/// cryptography): other implementations' verdict on our web push.
enum InteropScript {
    static let script = ProjectPythonTools.path("scripts/webpush-interop.py")
    static var python: String { ProjectPythonTools.python }

    struct Answer {
        let status: Int32
        let fields: [String: Any]
        let errors: String
    }

    /// Runs `command` on `request` (written to a temporary JSON file) and
    /// answers its exit status, its JSON answer and its standard error.
    /// Fails (never skips) when the tools are not installed.
    static func run(_ command: String, _ request: [String: Any]) throws -> Answer {
        try ProjectPythonTools.require("http_ece and py_vapid are")
        let base = NSTemporaryDirectory() + "pushgw-webpush-\(UUID().uuidString)"
        let (file, errorFile) = (base + ".json", base + ".stderr")
        defer {
            try? FileManager.default.removeItem(atPath: file)
            try? FileManager.default.removeItem(atPath: errorFile)
        }
        try JSONSerialization.data(withJSONObject: request).write(to: URL(fileURLWithPath: file))
        FileManager.default.createFile(atPath: errorFile, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, command, file]
        let output = Pipe()
        process.standardOutput = output
        // Standard error to a file, read once the script has ended; the
        // answer itself is read to its end before waiting for the exit.
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorFile))
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errors = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
        let fields = (try? JSONSerialization.jsonObject(with: outputData)) as? [String: Any] ?? [:]
        return Answer(status: process.terminationStatus, fields: fields, errors: errors)
    }
}
