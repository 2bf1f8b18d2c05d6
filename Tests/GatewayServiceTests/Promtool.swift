import Foundation

/// Prometheus' own checker, `promtool` (Debian package `prometheus`, which
/// `scripts/install-deps` installs), run as a child process: the exposition,
/// the alerting rules and the dashboard's queries are judged by the tool
/// Prometheus itself uses, not by a reimplementation of its rules.
struct Promtool {
    /// What `promtool` said and how it ended.
    struct Run {
        let status: Int32
        let output: String
    }

    /// `promtool` is not installed: the tests that need it fail (never skip).
    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "promtool is not on PATH: run scripts/install-deps (it installs the Debian package prometheus, which provides promtool)"
        }
    }

    let executable: String

    /// The first `promtool` on `PATH`, or `Missing`.
    init() throws {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let candidates = path.split(separator: ":").map { "\($0)/promtool" }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { throw Missing() }
        executable = found
    }

    /// `promtool` with `arguments`, `input` on its standard input; its
    /// standard output and error together.
    func run(_ arguments: [String], input: [UInt8] = [], directory: String? = nil) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        // Standard input from a file: a pipe written while the output pipe
        // fills could block both sides.
        let inputPath = NSTemporaryDirectory() + "pushgw-promtool-\(UUID().uuidString).in"
        _ = FileManager.default.createFile(atPath: inputPath, contents: Data(input))
        defer { try? FileManager.default.removeItem(atPath: inputPath) }
        let inputHandle = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputPath))
        defer { try? inputHandle.close() }
        process.standardInput = inputHandle
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// `promtool check metrics` on one exposition: nil when it is clean,
    /// else what promtool found.
    func lintMetrics(_ exposition: [UInt8]) throws -> String? {
        let run = try run(["check", "metrics"], input: exposition)
        let output = run.output.trimmingCharacters(in: .whitespacesAndNewlines)
        return run.status == 0 && output.isEmpty ? nil : "exit \(run.status): \(output)"
    }
}

/// The repository's root, for the files it ships (`deploy/`).
enum RepositoryRoot {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
}
