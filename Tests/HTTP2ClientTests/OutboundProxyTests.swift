@testable import NetworkSockets
import XCTest

/// The proxy URL, its redaction, the `NO_PROXY` list and the proxy's
/// answer to `CONNECT`, without sockets.
final class OutboundProxyTests: XCTestCase {
    func testAProxyURLGivesHostPortAndPercentDecodedCredentials() throws {
        let proxy = try OutboundProxy(url: "http://al%40ice:p%3Ass@proxy.corp.example:3128/")
        XCTAssertEqual(proxy.host, "proxy.corp.example")
        XCTAssertEqual(proxy.port, 3128)
        XCTAssertEqual(proxy.username, "al@ice")
        XCTAssertEqual(proxy.password, "p:ss")
        XCTAssertEqual(proxy.authorization, "Basic " + OutboundProxy.base64(Array("al@ice:p:ss".utf8)))
    }

    func testASchemelessURLIsHTTPAndAMissingPortIs80() throws {
        let proxy = try OutboundProxy(url: "proxy.corp.example")
        XCTAssertEqual(proxy.port, 80)
        XCTAssertNil(proxy.authorization)
        XCTAssertEqual(try OutboundProxy(url: "http://[fd00::1]:8080").host, "fd00::1")
    }

    func testTheDescriptionAndEveryErrorHideThePassword() throws {
        let proxy = try OutboundProxy(url: "http://alice:s3cret-pw@proxy:3128")
        XCTAssertEqual(proxy.description, "http://alice:***@proxy:3128")
        XCTAssertFalse("\(proxy)".contains("s3cret-pw"))
        for bad in ["https://alice:s3cret-pw@proxy:3128", "http://alice:s3cret-pw@proxy:99999", "http://alice:s3cret-pw@proxy/path",
                    "socks5://alice:s3cret-pw@proxy:1080", "http://alice:s3cret-pw@"] {
            XCTAssertThrowsError(try OutboundProxy(url: bad), bad) { error in
                XCTAssertFalse("\(error)".contains("s3cret-pw"), "\(error)")
            }
        }
    }

    func testBasicCredentialsAreStandardBase64WithPadding() {
        XCTAssertEqual(OutboundProxy.base64(Array("Aladdin:open sesame".utf8)), "QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        XCTAssertEqual(OutboundProxy.base64(Array("a:b".utf8)), "YTpi")
        XCTAssertEqual(OutboundProxy.base64(Array("ab:c?".utf8)), "YWI6Yz8=")
        XCTAssertEqual(OutboundProxy.base64([0xFB, 0xFF]), "+/8=")
    }

    func testNoProxyMatchesNamesSuffixesAddressesAndBlocks() {
        let list = ProxyBypassList("localhost, .internal.example,corp.example:8443, 127.0.0.1,10.0.0.0/8 ,[::1], fd00::/8")
        for host in ["localhost", "LOCALHOST", "api.internal.example", "internal.example", "corp.example", "a.corp.example",
                     "127.0.0.1", "10.20.30.40", "::1", "[::1]", "fd12::7"] {
            XCTAssertTrue(list.bypasses(host), host)
        }
        for host in ["api.push.apple.com", "notcorp.example", "127.0.0.2", "11.0.0.1", "fe80::1", "localhost.evil.example"] {
            XCTAssertFalse(list.bypasses(host), host)
        }
        XCTAssertTrue(ProxyBypassList("*").bypasses("api.push.apple.com"))
        XCTAssertFalse(ProxyBypassList("").bypasses("localhost"))
    }

    func testTheRouteGivesTheProxyExceptForBypassedHosts() throws {
        let proxy = try OutboundProxy(url: "http://proxy:3128")
        let route = ProxyRoute(proxy: proxy, bypass: ProxyBypassList("127.0.0.1"))
        XCTAssertEqual(route.proxy(for: "api.push.apple.com"), proxy)
        XCTAssertNil(route.proxy(for: "127.0.0.1"))
        XCTAssertNil(ProxyRoute.direct.proxy(for: "api.push.apple.com"))
    }

    func testTheConnectRequestNamesTheTargetTwiceAndCarriesTheCredentials() throws {
        let proxy = try OutboundProxy(url: "http://alice:pw@proxy:3128")
        let text = String(decoding: ProxyTunnel.request(host: "api.push.apple.com", port: 443, proxy: proxy), as: UTF8.self)
        XCTAssertEqual(text, "CONNECT api.push.apple.com:443 HTTP/1.1\r\nHost: api.push.apple.com:443\r\n"
            + "Proxy-Authorization: Basic YWxpY2U6cHc=\r\n\r\n")
        let v6 = String(decoding: ProxyTunnel.request(host: "2001:db8::1", port: 443, proxy: OutboundProxy(host: "p", port: 1)),
                        as: UTF8.self)
        XCTAssertTrue(v6.hasPrefix("CONNECT [2001:db8::1]:443 HTTP/1.1\r\nHost: [2001:db8::1]:443\r\n\r\n"), v6)
    }

    func testTheAnswerHeadEndsAtTheEmptyLineAndNotBeyond() {
        let head = "HTTP/1.1 200 Connection established\r\nProxy-Agent: x\r\n\r\n"
        XCTAssertEqual(ProxyConnectAnswer.parse(Array((head + "\u{16}\u{03}").utf8)),
                       .complete(status: 200, reason: "Connection established", length: head.utf8.count))
        XCTAssertEqual(ProxyConnectAnswer.parse(Array("HTTP/1.0 407 Proxy Authentication Required\n\n".utf8)),
                       .complete(status: 407, reason: "Proxy Authentication Required", length: 44))
        XCTAssertEqual(ProxyConnectAnswer.parse(Array("HTTP/1.1 200 OK\r\nVia: a\r\n".utf8)), .incomplete)
        XCTAssertEqual(ProxyConnectAnswer.parse(Array("HTT".utf8)), .incomplete)
    }

    func testAnAnswerThatIsNotHTTPOrTooLongIsMalformed() {
        guard case .malformed = ProxyConnectAnswer.parse(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8)) else { return XCTFail() }
        guard case .malformed = ProxyConnectAnswer.parse(Array("HTTP/1.1 2000 OK\r\n\r\n".utf8)) else { return XCTFail() }
        let endless = Array(("HTTP/1.1 200 OK\r\n" + String(repeating: "X-Pad: aaaaaaaa\r\n", count: 1000)).utf8)
        guard case .malformed = ProxyConnectAnswer.parse(endless) else { return XCTFail() }
    }
}
