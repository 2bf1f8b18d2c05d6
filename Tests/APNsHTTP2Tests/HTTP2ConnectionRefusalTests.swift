import APNsHTTP2
@testable import HTTP2Client
import Foundation
import XCTest

/// A request handed to a connection that has already failed ends with that
/// failure, exactly like the requests queued before it did: whether the
/// caller was first or the connect failure was must not change the outcome.
final class HTTP2ConnectionRefusalTests: XCTestCase {
    func testARequestAfterAConnectFailureEndsWithTheConnectFailure() async throws {
        let testbed = try APNsTestbed()
        let port = try XCTUnwrap(URLComponents(string: testbed.simulator.url)?.port)
        testbed.simulator.stop()
        let (closed, closing) = AsyncStream<Void>.makeStream()
        let connection = try HTTP2Connection(host: "127.0.0.1", port: port, tls: TLSConfiguration(caFile: testbed.caFile),
                                             onClose: { _ in closing.yield() })
        for await _ in closed { break }
        XCTAssertFalse(connection.didConnect)
        do throws(TransportError) {
            _ = try await connection.send(HTTP2Request(path: "/3/device/00"))
            XCTFail("a dead connection sent a request")
        } catch {
            XCTAssertEqual(error.kind, .connectFailed, "\(error)")
        }
        connection.shutdown()
    }
}
