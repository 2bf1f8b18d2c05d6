public import Foundation

/// The pinned Python tools some tests run (schemathesis, http_ece,
/// py_vapid, cryptography), from the virtual environment
/// `scripts/install-deps` fills, and the checkout's scripts they run.
public enum ProjectPythonTools {
    /// The checkout's root folder.
    public static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The path of `relative` (for example `scripts/webpush-interop.py`) in the checkout.
    public static func path(_ relative: String) -> String {
        checkout.appendingPathComponent(relative).path
    }

    /// The virtual environment's python, where `scripts/install-deps` makes
    /// it: `${XDG_CACHE_HOME:-~/.cache}/pushgw/venv/bin/python`.
    public static var python: String {
        let environment = ProcessInfo.processInfo.environment
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.cache"
        return cache + "/pushgw/venv/bin/python"
    }

    /// Throws `Missing`, naming the remedy, when the environment is not
    /// there: tests that need the tools fail rather than skip.
    public static func require(_ tools: String) throws(Missing) {
        guard FileManager.default.isExecutableFile(atPath: python) else { throw Missing(tools: tools) }
    }

    /// The virtual environment is missing.
    public struct Missing: Error, CustomStringConvertible {
        /// The tools the test needed, as named in the message.
        public let tools: String
        public var description: String { "\(tools) not installed (no \(ProjectPythonTools.python)): run scripts/install-deps" }
    }
}
