import PushGWSync
import TestSupport
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

    /// `wholeNanoseconds` (one division of the attoseconds) against its
    /// rule from `components`: whole seconds and the truncated rest, for
    /// durations of either sign from attoseconds to centuries (fixed seed).
    func testWholeNanosecondsTruncateAsTheComponentsDo() {
        func rule(_ duration: Duration) -> Int64 {
            let (seconds, attoseconds) = duration.components
            return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        }
        var generator = SplitMix64(seed: 0xD0_2A7E)
        for _ in 0..<10_000 {
            let seconds = Int64(bitPattern: generator.next()) % 5_000_000_000
            let attoseconds = Int64(bitPattern: generator.next()) % 1_000_000_000_000_000_000
            let sameSign = (seconds < 0) == (attoseconds < 0) ? attoseconds : -attoseconds
            for duration in [Duration(secondsComponent: seconds, attosecondsComponent: sameSign),
                             .nanoseconds(seconds), .nanoseconds(seconds % 1_000) + .seconds(seconds % 100)] {
                XCTAssertEqual(duration.wholeNanoseconds, rule(duration), "\(duration)")
            }
        }
        for duration: Duration in [.zero, .nanoseconds(-1), .init(secondsComponent: 0, attosecondsComponent: -999_999_999),
                                   .init(secondsComponent: -3, attosecondsComponent: -1), .seconds(9_000_000_000)] {
            XCTAssertEqual(duration.wholeNanoseconds, rule(duration), "\(duration)")
        }
    }
}
