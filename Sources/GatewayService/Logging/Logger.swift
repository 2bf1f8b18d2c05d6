import Foundation
import PayloadBuilder

/// JSON-lines logs on standard error: one object per line with `ts`,
/// `level`, `msg` and fields. Device tokens go through `redact(token:)`;
/// secrets are never passed to the logger at all.
public struct Logger: Sendable {
    public enum Level: String, Sendable, Comparable {
        case debug, info, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool {
            let order: [Level] = [.debug, .info, .warning, .error]
            return order.firstIndex(of: lhs)! < order.firstIndex(of: rhs)!
        }
    }

    public let minimumLevel: Level
    private let sink: @Sendable ([UInt8]) -> Void

    public init(minimumLevel: Level = .info, sink: @escaping @Sendable ([UInt8]) -> Void = Logger.standardError) {
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    public static let standardError: @Sendable ([UInt8]) -> Void = { line in
        FileHandle.standardError.write(Data(line))
    }

    /// A device token shortened to its first 8 characters: enough to correlate, useless to send.
    public static func redact(token: String) -> String {
        token.count <= 8 ? "…" : String(token.prefix(8)) + "…"
    }

    public func log(_ level: Level, _ message: String, _ fields: [(String, String)] = []) {
        guard level >= minimumLevel else { return }
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("ts", ISO8601DateFormatter().string(from: Date()))
        writer.member("level", level.rawValue)
        writer.member("msg", message)
        for (key, value) in fields { writer.member(key, value) }
        writer.endObject()
        sink(writer.bytes + [0x0A])
    }

    public func info(_ message: String, _ fields: [(String, String)] = []) { log(.info, message, fields) }
    public func warning(_ message: String, _ fields: [(String, String)] = []) { log(.warning, message, fields) }
    public func error(_ message: String, _ fields: [(String, String)] = []) { log(.error, message, fields) }
}
