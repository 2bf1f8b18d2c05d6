@testable import APNsSimulator
import XCTest

/// The FCM simulator's routing of a request path.
final class FCMRequestRoutingTests: XCTestCase {
    /// The routing helpers compare bytes for ASCII paths and Characters
    /// otherwise; both give the Character-based answer.
    func testRoutesAndProjectsAreReadAsCharactersAre() {
        let paths = ["/v1/projects/p/messages:send", "/v1/projects/p/messages:send?x=1", "/v1/projects//messages:send",
                     "/v1/projects/a/b/messages:send", "/v1/projects/messages:send", "/token", "/token?", "?",
                     "/v1/projects/\u{301}p/messages:send", "/v1/projects/p\u{301}/messages:send", "/v1/projects/é/messages:send",
                     "/token?\u{301}x", "/v1/projects/p/messages:send\u{301}", "", "/v1/projects/\r\n/messages:send"]
        for path in paths {
            let route = String(path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            XCTAssertEqual(FCMRequestHandler.route(of: path), route, path)
            let prefix = "/v1/projects/", suffix = "/messages:send"
            var project: String?
            if route.hasPrefix(prefix), route.hasSuffix(suffix), route.count > prefix.count + suffix.count {
                let middle = route.dropFirst(prefix.count).dropLast(suffix.count)
                project = middle.contains("/") ? nil : String(middle)
            }
            XCTAssertEqual(FCMRequestHandler.sendProject(route), project, path)
        }
    }
}
