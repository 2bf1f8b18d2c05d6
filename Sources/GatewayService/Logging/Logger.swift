import Foundation
import PayloadBuilder

/// JSON-lines logs on standard error: one object per line with `ts`,
/// `level`, `msg` and fields. Device tokens go through `redact(token:)`;
/// secrets are never passed to the logger at all.
public struct Logger: Sendable {
    /// How important a line is; lines below the logger's minimum are not written.
    public enum Level: String, Sendable, Comparable {
        case debug, info, warning, error

        private var rank: Int {
            switch self {
            case .debug: 0
            case .info: 1
            case .warning: 2
            case .error: 3
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rank < rhs.rank }
    }

    public let minimumLevel: Level
    private let sink: @Sendable ([UInt8]) -> Void

    public init(minimumLevel: Level = .info, sink: @escaping @Sendable ([UInt8]) -> Void = Logger.standardError) {
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    /// Standard error; a line it refuses (reader gone, disk full) is dropped, never fatal.
    public static let standardError: @Sendable ([UInt8]) -> Void = { line in
        FileDescriptorWriter.write(line, to: STDERR_FILENO)
    }

    /// A device token shortened to its first 8 characters: enough to correlate, useless to send.
    public static func redact(token: String) -> String {
        token.count <= 8 ? "…" : String(token.prefix(8)) + "…"
    }

    /// Writes one line when `level` is at least the minimum; `fields` are
    /// only worked out then (the hot paths log per event).
    public func log(_ level: Level, _ message: String, _ fields: @autoclosure () -> [(String, String)] = []) {
        guard level >= minimumLevel else { return }
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("ts", Self.timestamp())
        writer.member("level", level.rawValue)
        writer.member("msg", message)
        for (key, value) in fields() { writer.member(key, value) }
        writer.endObject()
        sink(writer.bytes + [0x0A])
    }

    public func info(_ message: String, _ fields: @autoclosure () -> [(String, String)] = []) { log(.info, message, fields()) }
    public func warning(_ message: String, _ fields: @autoclosure () -> [(String, String)] = []) { log(.warning, message, fields()) }
    public func error(_ message: String, _ fields: @autoclosure () -> [(String, String)] = []) { log(.error, message, fields()) }

    /// Now in UTC as ISO 8601 with milliseconds, e.g. `2026-11-30T13:48:41.123Z`
    /// (no formatter object, no locale or ICU data per line).
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return digits(parts.tm_year + 1900, 4) + "-" + digits(parts.tm_mon + 1, 2) + "-" + digits(parts.tm_mday, 2)
            + "T" + digits(parts.tm_hour, 2) + ":" + digits(parts.tm_min, 2) + ":" + digits(parts.tm_sec, 2)
            + "." + digits(Int32(now.tv_nsec / 1_000_000), 3) + "Z"
    }
}
