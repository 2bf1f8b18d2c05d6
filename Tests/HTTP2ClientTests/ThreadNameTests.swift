import Foundation
import PushGWSync
@testable import HTTP2Client
import XCTest

/// Thread names reach the kernel (what `top -H` and `/proc` show), cut to
/// Linux's 15 bytes.
final class ThreadNameTests: XCTestCase {
    func testTheKernelSeesTheNameCutToFifteenBytes() {
        let seen = Locked<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            for name in ["pushgw-test", "pushgw-a-much-longer-name"] {
                ThreadName.setCurrent(name)
                let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "(unreadable)"
                seen.withLock { $0.append(comm.trimmingCharacters(in: .newlines)) }
            }
            done.signal()
        }
        thread.start()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(seen.withLock { $0 }, ["pushgw-test", "pushgw-a-much-l"])
    }
}
