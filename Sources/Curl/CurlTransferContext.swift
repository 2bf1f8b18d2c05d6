internal import CCurl
internal import CCurlShims  // some of curl.h (curlsocktype) is seen through the shims module in release builds
import Glibc

// libcurl's callbacks for one perform. File-level constants, as C callbacks
// must be; the user data is the `CurlTransferContext`, passed unretained:
// `CurlEasy.perform` keeps it alive until `curl_easy_perform` returns and
// clears the pointers before the next transfer.

/// CURLOPT_WRITEFUNCTION: hands each body chunk to the context, whose answer
/// (the chunk's length, or `CURL_WRITEFUNC_ERROR`) stops the download as soon
/// as it is too large or refused.
let curlWriteBody: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, context in
    guard let context else { return Int(CURL_WRITEFUNC_ERROR) }
    let transfer = Unmanaged<CurlTransferContext>.fromOpaque(context).takeUnretainedValue()
    return transfer.receive(UnsafeRawBufferPointer(start: data, count: size * count))
}

/// CURLOPT_HEADERFUNCTION: one header line at a time (also for HTTP/2, where
/// libcurl presents the fields as `name: value` lines).
let curlReceiveHeader: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, context in
    let length = size * count
    guard let context, let data, length > 0 else { return length }
    let transfer = Unmanaged<CurlTransferContext>.fromOpaque(context).takeUnretainedValue()
    transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
    return length
}

/// CURLOPT_OPENSOCKETFUNCTION: runs after DNS, once per address libcurl is
/// about to connect to, and creates the socket only when the request admits
/// that address. Checking here rather than on the name defeats DNS
/// rebinding: what is checked is what is connected to. A refusal returns
/// `CURL_SOCKET_BAD`, which libcurl reports as `CURLE_COULDNT_CONNECT` when no
/// address is left.
let curlOpenSocket: @convention(c) (UnsafeMutableRawPointer?, curlsocktype, UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t = {
    context, purpose, address in
    guard let context, let address else { return CURL_SOCKET_BAD }
    let transfer = Unmanaged<CurlTransferContext>.fromOpaque(context).takeUnretainedValue()
    return transfer.openSocket(purpose: purpose, address: address)
}

/// The state one perform shares with libcurl's callbacks: the request's
/// rules, the byte budget, the body and header fields so far, and what the
/// callbacks refused.
///
/// Not thread-safe and not meant to be: libcurl calls back on the thread in
/// `curl_easy_perform`, the thread that owns this object.
final class CurlTransferContext {
    private let request: CurlRequest
    private let limit: Int
    private let keptHeaders: Set<String>
    /// Whether the open-socket callback applies `admitsAddress`: not through
    /// a proxy, whose socket goes to the proxy (the target was checked
    /// before the transfer).
    private let checksSocketAddresses: Bool
    /// The handle's current status, read when the first body chunk arrives.
    private let currentStatus: () -> Int

    private(set) var body: [UInt8] = []
    private(set) var headers: [String: String] = [:]
    /// Body bytes seen (discarded bodies are counted too).
    private(set) var receivedBytes = 0
    /// The body went past the limit and the download was stopped.
    private(set) var exceededLimit = false
    /// The request's `bodyUse` refused the answer; its status.
    private(set) var refusedStatus: Int?
    /// The open-socket callback refused at least one resolved address.
    private(set) var refusedAddress = false

    init(request: CurlRequest, limit: Int, keptHeaders: Set<String>, checksSocketAddresses: Bool,
         currentStatus: @escaping () -> Int) {
        self.request = request
        self.limit = limit
        self.keptHeaders = keptHeaders
        self.checksSocketAddresses = checksSocketAddresses
        self.currentStatus = currentStatus
    }

    fileprivate func receive(_ chunk: UnsafeRawBufferPointer) -> Int {
        let status = currentStatus()
        let use = request.bodyUse(status)
        guard use != .refuse else {
            refusedStatus = status
            return Int(CURL_WRITEFUNC_ERROR)
        }
        receivedBytes += chunk.count
        guard receivedBytes <= limit else {
            exceededLimit = true
            return Int(CURL_WRITEFUNC_ERROR)
        }
        if use == .keep { body.append(contentsOf: chunk) }
        return chunk.count
    }

    fileprivate func receiveHeaderLine(_ line: UnsafeRawBufferPointer) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            // A status line starts a new response (after a redirect or 100): forget older fields and any body.
            if line.starts(with: Array("HTTP/".utf8)) {
                headers.removeAll()
                body.removeAll()
            }
            return
        }
        guard !keptHeaders.isEmpty else { return }
        let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
        guard keptHeaders.contains(name) else { return }
        var value = line[(colon + 1)...]
        let blank: Set<UInt8> = [0x20, 0x09, 0x0D, 0x0A]
        while let first = value.first, blank.contains(first) { value = value.dropFirst() }
        while let last = value.last, blank.contains(last) { value = value.dropLast() }
        headers[name] = String(decoding: value, as: UTF8.self)
    }

    fileprivate func openSocket(purpose: curlsocktype, address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        if checksSocketAddresses, let admits = request.admitsAddress {
            guard purpose == CURLSOCKTYPE_IPCXN, let bytes = Self.addressBytes(address), admits(bytes) else {
                refusedAddress = true
                return CURL_SOCKET_BAD
            }
        }
        let socketType = address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue)
        return socket(address.pointee.family, socketType, address.pointee.protocol)
    }

    /// The network-order bytes of the address libcurl passes to its
    /// open-socket callback: 4 for `AF_INET`, 16 for `AF_INET6`; nil for any
    /// other family or a short address.
    private static func addressBytes(_ address: UnsafePointer<curl_sockaddr>) -> [UInt8]? {
        let length = Int(address.pointee.addrlen)
        // `addr` is declared as a 16-byte `struct sockaddr`, but libcurl stores
        // the whole address (a `sockaddr_in6` is 28 bytes) from that offset on.
        guard let offset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr) else { return nil }
        let raw = UnsafeRawPointer(address) + offset
        switch address.pointee.family {
        case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
            var v4 = raw.loadUnaligned(as: sockaddr_in.self).sin_addr
            return withUnsafeBytes(of: &v4) { Array($0) }
        case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
            var v6 = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
            return withUnsafeBytes(of: &v6) { Array($0) }
        default:
            return nil
        }
    }
}
