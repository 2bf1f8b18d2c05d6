@testable import HTTP2Client
import XCTest

/// `Retry-After` in both forms providers send (RFC 9110 §10.2.3).
final class RetryAfterTests: XCTestCase {
    func testDelaySeconds() {
        XCTAssertEqual(RetryAfter.duration("120", now: 0), .seconds(120))
        XCTAssertEqual(RetryAfter.duration(" 0 ", now: 0), .zero)
        XCTAssertNil(RetryAfter.duration("-5", now: 0))
        XCTAssertNil(RetryAfter.duration("1.5", now: 0))
        XCTAssertNil(RetryAfter.duration("", now: 0))
        XCTAssertEqual(RetryAfter.duration("99999999999999999999999", now: 0), .seconds(86_400), "capped at a day")
        XCTAssertEqual(RetryAfter.duration("9223372036854775807", now: 0), .seconds(86_400))
    }

    func testAnIMFFixdateIsTheTimeLeftUntilIt() {
        // Sun, 06 Nov 1994 08:49:37 GMT is 784111777 (RFC 9110's example).
        XCTAssertEqual(RetryAfter.duration("Sun, 06 Nov 1994 08:49:37 GMT", now: 784_111_777 - 90), .seconds(90))
        XCTAssertEqual(RetryAfter.duration("Sun, 06 Nov 1994 08:49:37 GMT", now: 784_111_777 + 10), .zero, "a past date: now")
        XCTAssertEqual(RetryAfter.duration("Thu, 01 Jan 1970 00:00:00 GMT", now: 0), .zero)
        XCTAssertEqual(RetryAfter.duration("Tue, 29 Feb 2028 23:59:59 GMT", now: 1_835_481_599 - 1), .seconds(1))
    }

    func testAnythingElseIsNoAdvice() {
        for text in ["Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 UTC",
                     "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, +6 Nov 1994 08:49:37 GMT",
                     "Sun, 06 Nov 1994 -1:49:37 GMT", "soon"] {
            XCTAssertNil(RetryAfter.duration(text, now: 0), text)
        }
    }
}
