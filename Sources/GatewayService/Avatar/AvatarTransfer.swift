import CCurl
import Curl
import Glibc

/// libcurl's write callback: hands each body chunk to the transfer, whose
/// answer (the chunk's length, or `CURL_WRITEFUNC_ERROR`) stops the download
/// as soon as it is too large or not worth reading. A file-level constant, as
/// C callbacks must be; the context is the unretained `AvatarTransfer`.
private let avatarWriteCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, context in
    guard let context else { return Int(CURL_WRITEFUNC_ERROR) }
    let transfer = Unmanaged<AvatarTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.receive(UnsafeRawBufferPointer(start: data, count: size * count))
}

/// libcurl's open-socket callback: runs after DNS, once per address libcurl
/// is about to connect to, and creates the socket only when the policy admits
/// that address. Checking here rather than on the name defeats DNS
/// rebinding: what is checked is what is connected to. A refusal returns
/// `CURL_SOCKET_BAD`, which libcurl reports as `CURLE_COULDNT_CONNECT` when no
/// address is left.
private let avatarOpenSocketCallback: @convention(c) (UnsafeMutableRawPointer?, curlsocktype, UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t = {
    context, purpose, address in
    guard let context, let address else { return CURL_SOCKET_BAD }
    let transfer = Unmanaged<AvatarTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.openSocket(purpose: purpose, address: address)
}

/// The state one HTTP exchange (one redirect hop) shares with libcurl's
/// callbacks: the policy's address rule, the byte budget, the body so far,
/// and what the callbacks refused.
///
/// Not thread-safe and not meant to be: libcurl calls back on the thread in
/// `curl_easy_perform`, the same worker thread that owns this object. The
/// callbacks get it through `Unmanaged.passUnretained`; `attach(to:)`'s
/// caller keeps it alive across the perform.
final class AvatarTransfer {
    private let policy: AvatarPolicy
    private let curl: CurlEasy

    /// The 200 response's body, at most `policy.maxBytes`.
    private(set) var body: [UInt8] = []
    /// Body bytes seen (3xx bodies are counted and discarded).
    private(set) var receivedBytes = 0
    /// The body went past `maxBytes` and the download was stopped.
    private(set) var exceededLimit = false
    /// The status was not 200 or 3xx, so the body was not read at all.
    private(set) var stoppedForStatus = false
    /// The open-socket callback refused at least one resolved address.
    private(set) var refusedAddress = false

    init(policy: AvatarPolicy, curl: CurlEasy) {
        self.policy = policy
        self.curl = curl
    }

    /// Points the handle's callbacks at this transfer. The caller keeps `self`
    /// alive until `perform()` returns (`withExtendedLifetime`).
    func attach() throws(CurlFailure) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        try curl.set(CURLOPT_WRITEFUNCTION, callback: avatarWriteCallback, name: "CURLOPT_WRITEFUNCTION")
        try curl.set(CURLOPT_WRITEDATA, pointer: context, name: "CURLOPT_WRITEDATA")
        try curl.setOpenSocketFunction(avatarOpenSocketCallback)
        try curl.set(CURLOPT_OPENSOCKETDATA, pointer: context, name: "CURLOPT_OPENSOCKETDATA")
    }

    fileprivate func receive(_ chunk: UnsafeRawBufferPointer) -> Int {
        let status = curl.responseCode
        guard status == 200 || (300..<400).contains(status) else {
            stoppedForStatus = true
            return Int(CURL_WRITEFUNC_ERROR)
        }
        receivedBytes += chunk.count
        guard receivedBytes <= policy.maxBytes else {
            exceededLimit = true
            return Int(CURL_WRITEFUNC_ERROR)
        }
        if status == 200 { body.append(contentsOf: chunk) }
        return chunk.count
    }

    fileprivate func openSocket(purpose: curlsocktype, address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        guard purpose == CURLSOCKTYPE_IPCXN,
              let ip = AvatarIPAddress(socketAddress: address),
              policy.admits(ip)
        else {
            refusedAddress = true
            return CURL_SOCKET_BAD
        }
        let socketType = address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue)
        return socket(address.pointee.family, socketType, address.pointee.protocol)
    }
}
