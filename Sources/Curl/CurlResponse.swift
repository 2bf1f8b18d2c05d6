/// What a completed transfer received: the last status (a redirect's, when
/// the answer was a redirect), the kept header fields, the body the request's
/// `bodyUse` kept, and the redirect target, if any.
package struct CurlResponse: Sendable {
    package var status: Int
    /// The fields named in `CurlOptions.keptHeaders`, lowercase names.
    package var headers: [String: String]
    package var body: [UInt8]
    /// The absolute target of a 3xx `Location`, resolved against the request's URL.
    package var redirectURL: String?
    /// True when the exchange ran over HTTP/2.
    package var usedHTTP2: Bool
}
