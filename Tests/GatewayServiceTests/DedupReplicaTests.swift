import APNsHTTP2
import APNsSimulator
import FCMClient
import GatewayService
import GatewayHTTP
import PayloadBuilder
import TestSupport
import XCTest

/// Dispatchers sharing one dedup store, as replicas share Redis (in-process
/// instances on one testbed's provider clients): a copy of an event on
/// another replica waits for the first one's record instead of sending, and
/// a replica that dies holding a claim leaves one that lapses, after which a
/// retry sends what the record does not settle.
final class DedupReplicaTests: XCTestCase {
    /// Another replica in front of `testbed`'s providers, on `store`.
    private func replica(_ testbed: ServiceTestbed, _ store: any DedupStore,
                         settings: Dispatcher.Settings = Dispatcher.Settings()) -> Dispatcher {
        Dispatcher(config: testbed.dispatcher.config,
                   senders: ["demo": [.apns: APNsSender(client: testbed.apns), .fcm: FCMSender(client: testbed.fcm)]],
                   avatars: UncheckedAvatars(), dedup: store, metrics: GatewayMetrics(), settings: settings,
                   logger: Logger(minimumLevel: .error))
    }

    func testCopiesOnSeveralReplicasAtOnceSendOnce() async throws {
        let shared = InMemoryDedupStore()
        // Replicas asking the store across the network: waiting by asking again.
        let testbed = try ServiceTestbed(dedup: DedupStoreTestDouble(over: shared))
        testbed.simulator.setFaults(APNsSimulatorFaults(responseDelay: .milliseconds(100)))
        let replicas = [testbed.dispatcher, replica(testbed, DedupStoreTestDouble(over: shared)),
                        replica(testbed, DedupStoreTestDouble(over: shared))]
        let body = ServiceTestbed.event(id: "fleet", tokens: [ServiceTestbed.token(1), ServiceTestbed.token(2)])
        let answers = await withTaskGroup(of: HTTPResponse.self) { group in
            for replica in replicas { group.addTask { await replica.notify(body: body) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(answers.map(\.status), [200, 200, 200])
        let duplicates = try answers.map { try JSONParser.parse($0.body)["duplicate"] }
        XCTAssertEqual(duplicates.filter { $0 == .bool(false) }.count, 1, "one replica sends, the others answer from its record")
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 2, "each device once")
    }

    func testAReplicaThatDiesHoldingAClaimLeavesOneThatLapsesThenOnlyTheUnsettledAreSent() async throws {
        let shared = InMemoryDedupStore()
        let testbed = try ServiceTestbed(dedup: shared)
        let (kept, lost) = (ServiceTestbed.token(1), ServiceTestbed.token(2))
        // The first batch of the event, sent and recorded.
        let first = await testbed.dispatcher.notify(body: ServiceTestbed.event(id: "crash", tokens: [kept]))
        XCTAssertEqual(first.status, 200)

        // A replica that claims, sends, and dies before it records: its
        // record and release never reach the store.
        let dying = DedupStoreTestDouble(over: shared)
        dying.set(.fails(DedupStoreFailure(.unreachable, "the process died")), for: [.record, .release])
        var short = Dispatcher.Settings()
        short.requestDeadline = .milliseconds(500)
        short.claimMargin = .seconds(2)
        let both = ServiceTestbed.event(id: "crash", tokens: [kept, lost])
        let died = await replica(testbed, dying, settings: short).notify(body: both)
        XCTAssertEqual(died.status, 200, "its caller never gets this answer; the device was sent")
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 2)

        // A retry on a live replica while the claim holds: nothing sent, retryable.
        var live = Dispatcher.Settings()
        live.requestDeadline = .milliseconds(300)
        let waiting = replica(testbed, shared, settings: live)
        let refused = await waiting.notify(body: both)
        XCTAssertEqual(refused.status, 409)
        XCTAssertEqual(try JSONParser.parse(refused.body)["error"]?["code"], .string("in_progress"))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 2)

        // Once the claim lapses: the recorded device answered, the unrecorded one sent again.
        try await waitUntil("the dead replica's claim lapsed", within: .seconds(10)) { shared.claimsHeld() == 0 }
        let retried = await waiting.notify(body: both)
        XCTAssertEqual(retried.status, 200)
        let body = try JSONParser.parse(retried.body)
        XCTAssertEqual(body["duplicate"], .bool(true), "the first batch's device is answered from the record")
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 3, "only the device the record did not settle is sent")
    }

}
