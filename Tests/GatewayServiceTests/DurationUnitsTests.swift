import PushGWSync
import XCTest

/// One conversion of `Duration` for the whole project: poll timeouts wait
/// at least the duration, nanoseconds truncate, seconds keep the fraction.
final class DurationUnitsTests: XCTestCase {
    func testPollTimeoutsRoundUpAndClamp() {
        XCTAssertEqual(Duration.zero.pollMilliseconds, 0)
        XCTAssertEqual(Duration.milliseconds(-5).pollMilliseconds, 0)
        XCTAssertEqual(Duration.nanoseconds(1).pollMilliseconds, 1)
        XCTAssertEqual(Duration.milliseconds(20).pollMilliseconds, 21, "at least the duration: +1 for the part poll would cut")
        XCTAssertEqual(Duration.seconds(3).pollMilliseconds, 3_001)
        XCTAssertEqual(Duration.seconds(86_400 * 365).pollMilliseconds, Int32.max)
    }

    func testNanosecondsAndSeconds() {
        XCTAssertEqual(Duration.milliseconds(1_500).wholeNanoseconds, 1_500_000_000)
        XCTAssertEqual(Duration.nanoseconds(7).wholeNanoseconds, 7)
        XCTAssertEqual(Duration.milliseconds(250).inSeconds, 0.25, accuracy: 1e-12)
        XCTAssertEqual(Duration.seconds(2).inSeconds, 2)
    }
}
