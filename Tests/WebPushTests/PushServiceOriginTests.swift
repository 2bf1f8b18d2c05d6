import WebPush
import XCTest

/// The audience of a VAPID JWT: the endpoint's origin, serialized as RFC 6454 says.
final class PushServiceOriginTests: XCTestCase {
    func testEndpointsGiveTheirOrigin() throws {
        let cases = [
            "https://fcm.googleapis.com/fcm/send/dGVzdA:APA91b": "https://fcm.googleapis.com",
            "https://updates.push.services.mozilla.com/wpush/v2/gAAAAA": "https://updates.push.services.mozilla.com",
            "HTTPS://Web.Push.Apple.COM:443/QGd3": "https://web.push.apple.com",
            "https://127.0.0.1:8443/push/abc?x=1": "https://127.0.0.1:8443",
            "https://[::1]:9443/p": "https://[::1]:9443",
            "https://push.example:/x": "https://push.example",
            "http://127.0.0.1:80#frag": "http://127.0.0.1",
        ]
        for (endpoint, origin) in cases {
            XCTAssertEqual(try PushServiceOrigin(endpoint: endpoint).serialized, origin, endpoint)
        }
    }

    func testEndpointsWithoutAUsableOriginAreRefused() {
        for endpoint in ["fcm.googleapis.com/fcm/send/x", "ftp://push.example/x", "https:///x", "https://user@push.example/x",
                         "https://push.example:99999/x", "https://push.example:44a/x", "https://[::1/x", "https://pu sh.example/",
                         "https://[]/x", "https://push.example%2f/x"] {
            XCTAssertThrowsError(try PushServiceOrigin(endpoint: endpoint), endpoint) {
                guard case .invalidEndpoint? = $0 as? VAPIDError else { return XCTFail("\(endpoint): \($0)") }
            }
        }
    }
}
