import XCTest
import APNsHTTP2

final class ScratchTests: XCTestCase {
    func testAgainstNghttpd() async throws {
        let connection = try HTTP2Connection(host: "127.0.0.1", port: 18443, tls: TLSConfiguration(caFile: "/tmp/h2dev/cert.pem"))
        let response = try await connection.send(HTTP2Request(method: "GET", path: "/"))
        print("status", response.status, response.headers.count, response.body.count)
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<9000 {
                group.addTask { try await connection.send(HTTP2Request(method: "POST", path: "/3/device/abc", body: Array("{\"aps\":{}}".utf8))).status }
            }
            var counts: [Int: Int] = [:]
            for try await status in group { counts[status, default: 0] += 1 }
            print(counts, clock.now - start)
        }
    }
}
