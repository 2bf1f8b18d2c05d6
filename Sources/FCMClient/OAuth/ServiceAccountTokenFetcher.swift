import PayloadBuilder
import HTTP2Client
import Dispatch

/// Fetches OAuth 2.0 access tokens for a service account (RFC 7523 JWT
/// bearer grant, PROTOCOLS.md B5): signs an RS256 assertion and POSTs
/// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=…`
/// form-encoded to the account's `token_uri` with libcurl.
///
/// libcurl's easy interface blocks, so each grant runs on this fetcher's own
/// serial `DispatchQueue` and the caller is resumed through a continuation;
/// no thread of Swift's cooperative pool ever waits on the network.
///
/// Answers: 200 with `access_token`, `expires_in` (a number or a numeric
/// string) and `token_type` `Bearer` → a grant; 429/5xx → `unavailable`
/// (retryable, with `Retry-After`); 400/401/403 → `refused` with the OAuth
/// `error` code (configuration); anything else → `invalidResponse`.
public struct ServiceAccountTokenFetcher: AccessTokenFetcher {
    public let serviceAccount: ServiceAccount
    public let configuration: TokenEndpointConfiguration
    private let queue: DispatchQueue

    public init(serviceAccount: ServiceAccount, configuration: TokenEndpointConfiguration = TokenEndpointConfiguration()) {
        self.serviceAccount = serviceAccount
        self.configuration = configuration
        queue = DispatchQueue(label: "pushgw.oauth-token-fetcher", qos: .utility)
    }

    public func fetch(now: Int64) async throws(AccessTokenError) -> AccessTokenGrant {
        let assertion = try serviceAccount.assertion(scope: configuration.scope, issuedAt: now,
                                                     lifetime: configuration.assertionLifetime)
        let form = "grant_type=" + Self.formEncoded("urn:ietf:params:oauth:grant-type:jwt-bearer")
            + "&assertion=" + Self.formEncoded(assertion)
        let post = HTTPSPost(url: serviceAccount.tokenURI,
                             headers: ["Content-Type: application/x-www-form-urlencoded", "Accept: application/json"],
                             body: Array(form.utf8), caFile: configuration.caFile,
                             connectTimeout: configuration.connectTimeout, timeout: configuration.timeout,
                             maximumResponseBytes: configuration.maximumResponseBytes, route: configuration.route)
        switch await post.send(on: queue) {
        case .failure(let failure):
            throw AccessTokenError(.transport, "token request to \(serviceAccount.tokenURI): \(failure)")
        case .success(let response):
            return try Self.grant(from: response, tokenURI: serviceAccount.tokenURI, now: now)
        }
    }

    /// Reads a token-endpoint answer (a `Retry-After` date against `now`, epoch seconds).
    static func grant(from response: HTTPSPost.Response, tokenURI: String, now: Int64) throws(AccessTokenError) -> AccessTokenGrant {
        let document = try? JSONParser.parse(response.body)
        switch response.status {
        case 200:
            guard let document,
                  case .string(let token)? = document["access_token"], !token.isEmpty,
                  let expiresIn = seconds(document["expires_in"]), expiresIn > 0 else {
                throw AccessTokenError(.invalidResponse, "the token endpoint's 200 has no access_token and expires_in",
                                       httpStatus: 200)
            }
            var type = "Bearer"
            if case .string(let sent)? = document["token_type"] {
                guard sent.lowercased() == "bearer" else {
                    throw AccessTokenError(.invalidResponse, "token_type \(sent) is not Bearer", httpStatus: 200)
                }
                type = sent
            }
            return AccessTokenGrant(accessToken: token, expiresIn: expiresIn, tokenType: type)
        case 429, 500...599:
            throw AccessTokenError(.unavailable, "the token endpoint \(tokenURI) is unavailable\(oauthText(document))",
                                   httpStatus: response.status, oauthError: oauthCode(document),
                                   retryAfter: response.headers["retry-after"].flatMap { RetryAfter.duration($0, now: now) })
        case 400, 401, 403:
            throw AccessTokenError(.refused, "the token endpoint refused the grant\(oauthText(document))",
                                   httpStatus: response.status, oauthError: oauthCode(document))
        default:
            throw AccessTokenError(.invalidResponse, "unexpected answer from \(tokenURI)\(oauthText(document))",
                                   httpStatus: response.status, oauthError: oauthCode(document))
        }
    }

    private static func oauthCode(_ document: JSONValue?) -> String? {
        if case .string(let code)? = document?["error"] { return code }
        return nil
    }

    private static func oauthText(_ document: JSONValue?) -> String {
        guard let code = oauthCode(document) else { return "" }
        if case .string(let text)? = document?["error_description"] { return ": \(code): \(text)" }
        return ": \(code)"
    }

    /// `expires_in` as a number or a numeric string (both occur).
    private static func seconds(_ value: JSONValue?) -> Int64? {
        switch value {
        case .int(let number)?: return number
        case .double(let number)? where number.isFinite && number >= 0 && number < 1e12: return Int64(number)
        case .string(let text)?: return Int64(text)
        default: return nil
        }
    }

    /// `application/x-www-form-urlencoded`: unreserved characters as they
    /// are, everything else as `%XX`.
    static func formEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
