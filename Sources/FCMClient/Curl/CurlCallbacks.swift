internal import CCurl

// libcurl callbacks. File-level constants, as C callbacks must be; the
// context is the `CurlResponseSink` passed unretained as user data (it
// lives on the stack frame of `HTTPSPost.perform`, which outlives the
// transfer).

/// CURLOPT_WRITEFUNCTION: appends body bytes; returning less than offered
/// (0) aborts the transfer with CURLE_WRITE_ERROR once the cap is passed.
let curlWriteBody: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, context in
    guard let context else { return 0 }
    let sink = Unmanaged<CurlResponseSink>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard let data, length > 0 else { return 0 }
    return sink.appendBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

/// CURLOPT_HEADERFUNCTION: one header line at a time (also for HTTP/2,
/// where libcurl presents the fields as `name: value` lines).
let curlReceiveHeader: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, context in
    guard let context else { return 0 }
    let sink = Unmanaged<CurlResponseSink>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard let data, length > 0 else { return length }
    sink.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
    return length
}

/// Collects one response: the body up to a cap, and the header fields the
/// caller asked for. Thread-confined to the transfer's thread.
final class CurlResponseSink {
    private(set) var body: [UInt8] = []
    private(set) var exceededLimit = false
    /// Kept header fields, lowercase names (the last value wins).
    private(set) var headers: [String: String] = [:]
    private let limit: Int
    private let keptHeaders: Set<String>

    init(limit: Int, keptHeaders: Set<String>) {
        self.limit = limit
        self.keptHeaders = keptHeaders
    }

    func appendBody(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard body.count + chunk.count <= limit else {
            exceededLimit = true
            return false
        }
        body.append(contentsOf: chunk)
        return true
    }

    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            // A status line starts a new response (after a redirect or 100): forget older fields.
            if line.starts(with: Array("HTTP/".utf8)) { headers.removeAll() }
            return
        }
        let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
        guard keptHeaders.contains(name) else { return }
        var value = line[(colon + 1)...]
        let blank: Set<UInt8> = [0x20, 0x09, 0x0D, 0x0A]
        while let first = value.first, blank.contains(first) { value = value.dropFirst() }
        while let last = value.last, blank.contains(last) { value = value.dropLast() }
        headers[name] = String(decoding: value, as: UTF8.self)
    }
}
