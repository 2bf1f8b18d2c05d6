/// The head of a proxy's answer to `CONNECT` (RFC 9110 §9.3.6), read from
/// the bytes received so far: a value with no socket, tested on its own.
///
/// Only the status line is interpreted; the header fields are skipped up
/// to the empty line, which ends the head. The tunnel's bytes start right
/// after it, so a reader must consume exactly `length` bytes.
enum ProxyConnectAnswer: Equatable {
    /// The head is not complete yet.
    case incomplete
    /// The head is complete: its status and reason phrase, and its length
    /// in bytes, the final empty line included.
    case complete(status: Int, reason: String, length: Int)
    /// Not an HTTP answer, or a head longer than `maximumLength`.
    case malformed(String)

    /// Longest head accepted: a proxy's answer to `CONNECT` is a few hundred bytes.
    static let maximumLength = 8 * 1024

    static func parse(_ bytes: some Collection<UInt8>) -> ProxyConnectAnswer {
        let bytes = Array(bytes.prefix(maximumLength + 1))
        if bytes.count >= 5, !bytes.starts(with: Array("HTTP/".utf8)) {
            return .malformed("the answer does not start with HTTP/")
        }
        guard let end = headEnd(bytes) else {
            return bytes.count > maximumLength ? .malformed("the answer's head is longer than \(maximumLength) bytes") : .incomplete
        }
        let firstLine = bytes[..<(bytes.firstIndex(of: UInt8(ascii: "\n")) ?? end)]
        let text = String(decoding: firstLine, as: UTF8.self).trimmingSuffix("\r")
        let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let status = Int(parts[1]),
              (100...599).contains(status)
        else {
            return .malformed("bad status line")
        }
        let reason = parts.count == 3 ? String(parts[2].prefix(100)) : ""
        return .complete(status: status, reason: reason, length: end)
    }

    /// The index after the empty line that ends the head (`\r\n\r\n`, or
    /// bare `\n\n` as RFC 9112 §2.2 lets a recipient accept), if present.
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        var index = 0
        while let newline = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) {
            let next = newline + 1
            if next < bytes.count, bytes[next] == UInt8(ascii: "\n") { return next + 1 }
            if next + 1 < bytes.count, bytes[next] == UInt8(ascii: "\r"), bytes[next + 1] == UInt8(ascii: "\n") { return next + 2 }
            index = next
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
