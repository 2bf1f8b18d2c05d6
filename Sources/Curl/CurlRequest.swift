/// One exchange for `CurlEasy.perform`: where, what to send, how long it may
/// take, and the caller's rules for the answer's body and for the addresses
/// DNS gives.
///
/// Holds closures that run on the performing thread, during the perform;
/// not `Sendable`, and not meant to leave that thread.
package struct CurlRequest {
    /// Where to send the request.
    package enum Target {
        /// A URL libcurl parses for this transfer.
        case text(String)
        /// A URL already parsed and checked by the caller: what was checked
        /// is what libcurl connects to.
        case parsed(CurlURL)
    }

    /// What to do with the body of an answer with a given status.
    package enum BodyUse: Sendable {
        /// Read it and hand it over.
        case keep
        /// Read it (it counts toward the limit) and forget it: a redirect's body.
        case discard
        /// Stop the transfer: the failure is `.statusRefused(status)`.
        case refuse
    }

    package var target: Target
    /// A POST with this body (`Content-Length` set, no chunking); a GET when nil.
    package var postBody: [UInt8]?
    /// For the whole transfer.
    package var timeout: Duration
    package var connectTimeout: Duration
    /// Decides, from the status, what happens to an answer's body. Keeps
    /// every body unless told otherwise.
    package var bodyUse: (_ status: Int) -> BodyUse
    /// Asked after DNS, once per address libcurl is about to connect to, with
    /// its network-order bytes (4 for IPv4, 16 for IPv6). A refused address
    /// gets no socket; when none is left the failure is `.addressRefused`.
    /// Nil: every address is connected to.
    ///
    /// Through a proxy, the target's addresses are what is checked, not the
    /// proxy's: the target (a `.parsed` URL) is resolved here within the
    /// connect timeout, each address asked in the resolver's order, and the
    /// tunnel is opened to the first admitted address, not to the name
    /// (`CONNECT 203.0.113.7:443`; TLS still checks the name). When none is
    /// admitted the failure is `.addressRefused` and nothing is sent.
    package var admitsAddress: ((_ bytes: [UInt8]) -> Bool)?
    /// Through this HTTP proxy; nil: directly. libcurl's proxy environment
    /// variables are ignored either way.
    package var proxy: CurlProxy?

    package init(target: Target, postBody: [UInt8]? = nil, timeout: Duration, connectTimeout: Duration,
                 bodyUse: @escaping (_ status: Int) -> BodyUse = { _ in .keep },
                 admitsAddress: ((_ bytes: [UInt8]) -> Bool)? = nil, proxy: CurlProxy? = nil) {
        self.target = target
        self.postBody = postBody
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.bodyUse = bodyUse
        self.admitsAddress = admitsAddress
        self.proxy = proxy
    }
}
