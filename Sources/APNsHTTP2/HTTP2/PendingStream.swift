internal import CNGHTTP2
import Foundation

/// One request's life inside a connection: the caller's continuation, the
/// header block and body handed to nghttp2, and the response as it arrives.
///
/// `@unchecked Sendable`: created by the sending task, then handed through the
/// connection's mutex-protected inbox to the event-loop thread, which alone
/// touches it from then on (nghttp2 callbacks run on that thread). The
/// continuation is resumed exactly once, guarded by `finished`.
final class PendingStream: @unchecked Sendable {
    let request: HTTP2Request
    let deadline: ContinuousClock.Instant
    private var continuation: CheckedContinuation<Result<HTTP2Response, TransportError>, Never>?
    private(set) var finished = false

    var streamID: Int32 = 0
    var status: Int?
    var responseHeaders: [HTTPHeader] = []
    var responseBody: [UInt8] = []
    var bodyOffset = 0

    /// Header names and values, contiguous; `nameValues` point into it.
    private var arena: UnsafeMutableRawBufferPointer?
    private(set) var nameValues: UnsafeMutableBufferPointer<nghttp2_nv>?

    init(request: HTTP2Request, continuation: CheckedContinuation<Result<HTTP2Response, TransportError>, Never>) {
        self.request = request
        self.continuation = continuation
        deadline = ContinuousClock.now + request.timeout
    }

    deinit {
        arena?.deallocate()
        nameValues?.deallocate()
    }

    /// Builds the header block: `fixed` pseudo headers shared by the
    /// connection (not copied: nghttp2 is told so), then `:path` and the
    /// request's headers copied once into this stream's arena.
    func buildHeaderBlock(fixed: UnsafeBufferPointer<nghttp2_nv>) -> UnsafeMutableBufferPointer<nghttp2_nv> {
        var size = ":method".utf8.count + request.method.utf8.count + ":path".utf8.count + request.path.utf8.count
        for header in request.headers { size += header.name.utf8.count + header.value.utf8.count }
        let arena = UnsafeMutableRawBufferPointer.allocate(byteCount: max(size, 1), alignment: 1)
        self.arena = arena
        let block = UnsafeMutableBufferPointer<nghttp2_nv>.allocate(capacity: fixed.count + 2 + request.headers.count)
        nameValues = block
        var offset = 0
        func copy(_ text: String) -> (UnsafeMutablePointer<UInt8>, Int) {
            let start = arena.baseAddress!.advanced(by: offset).assumingMemoryBound(to: UInt8.self)
            var count = 0
            for byte in text.utf8 {
                start[count] = byte
                count += 1
            }
            offset += count
            return (start, count)
        }
        let noCopy = UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue)
        var index = 0
        func add(_ name: String, _ value: String, flags: UInt8) {
            let (namePointer, nameLength) = copy(name)
            let (valuePointer, valueLength) = copy(value)
            block[index] = nghttp2_nv(name: namePointer, value: valuePointer, namelen: nameLength, valuelen: valueLength, flags: flags)
            index += 1
        }
        add(":method", request.method, flags: noCopy)
        for entry in fixed {
            block[index] = entry
            index += 1
        }
        add(":path", request.path, flags: noCopy | UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue))
        for header in request.headers {
            // Never put a credential in the HPACK dynamic table (APNs asks this of authorization).
            let sensitive = header.name == "authorization" ? UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) : 0
            add(header.name, header.value, flags: noCopy | sensitive)
        }
        return block
    }

    /// Resumes the caller, once; later calls are ignored.
    func finish(_ result: Result<HTTP2Response, TransportError>) {
        guard !finished else { return }
        finished = true
        continuation?.resume(returning: result)
        continuation = nil
    }

    /// Finishes with the response collected so far.
    func finishWithResponse() {
        finish(.success(HTTP2Response(status: status ?? 0, headers: responseHeaders, body: responseBody)))
    }
}
