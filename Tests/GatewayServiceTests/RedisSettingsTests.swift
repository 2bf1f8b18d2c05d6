import Foundation
import GatewayService
import RedisClient
import TestSupport
import XCTest

/// The shared store's settings: the URL checked as far as the service
/// needs (scheme, host, port, database) and never shown with its password;
/// each `redis` setting from the file or the environment, refused without a
/// URL; a gateway started on the store (not ready while it cannot be
/// reached), and a CA file that cannot be used refusing the start.
final class RedisSettingsTests: XCTestCase {
    private let password = "s3cr3t-Pa55"
    private let files: [String: [UInt8]] = [
        "/run/tokens": Array("0123456789abcdef0123\n".utf8),
        "/run/ca.pem": Array("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n".utf8),
    ]

    private func load(_ environment: [String: String], file: String? = nil) throws(ServiceError) -> GatewayConfiguration {
        var files = self.files
        var environment = environment
        if let file {
            files["/etc/pushgw.json"] = Array(file.utf8)
            environment["PUSHGW_CONFIG_FILE"] = "/etc/pushgw.json"
        }
        return try ConfigurationLoader(environment: environment, files: files).load()
    }

    private func error(_ environment: [String: String], file: String? = nil) -> ServiceError? {
        do {
            _ = try load(environment, file: file)
            return nil
        } catch {
            return error
        }
    }

    func testURLsAreReadForSchemeHostPortAndDatabase() throws {
        let plain = try RedisURL("redis://localhost", setting: "u")
        XCTAssertEqual([plain.host, String(plain.port), String(plain.database)], ["localhost", "6379", "0"])
        XCTAssertFalse(plain.usesTLS)
        let full = try RedisURL("rediss://app:\(password)@cache.internal:6380/2", setting: "u")
        XCTAssertTrue(full.usesTLS)
        XCTAssertEqual(full.user, "app")
        XCTAssertTrue(full.hasPassword)
        XCTAssertEqual([full.host, String(full.port), String(full.database)], ["cache.internal", "6380", "2"])
        XCTAssertEqual(full.redacted, "rediss://app:<redacted>@cache.internal:6380/2")
        let passwordOnly = try RedisURL("REDIS://:\(password)@[::1]:7000", setting: "u")
        XCTAssertEqual(passwordOnly.host, "::1")
        XCTAssertEqual(passwordOnly.redacted, "redis://:<redacted>@[::1]:7000/0")
        XCTAssertFalse(String(describing: full).contains(password))
        XCTAssertFalse("\(full)".contains(password))
        var dumped = ""
        dump(full, to: &dumped)
        XCTAssertFalse(dumped.contains(password), dumped)
    }

    func testABadURLIsNamedWithoutShowingIt() {
        for bad in ["http://u:\(password)@host", "redis://u:\(password)@", "redis://u:\(password)@host:0", "redis://u:\(password)@host:70000",
                    "redis://u:\(password)@host/db", "redis://u:\(password)@host/0?timeout=1", "redis://u:\(password)@[::1",
                    "redis://u:\(password)@host name"] {
            let refused = error(["PUSHGW_REDIS_URL": bad, "PUSHGW_BEARER_TOKENS_FILE": "/run/tokens"])
            XCTAssertEqual(refused?.setting, "PUSHGW_REDIS_URL", bad)
            XCTAssertFalse(refused?.message.contains(password) ?? true, "\(bad): \(refused?.message ?? "")")
        }
        let fromFile = error([:], file: #"{"redis": {"url": "redis://u:\#(password)@host:99999"}}"#)
        XCTAssertEqual(fromFile?.setting, "redis.url")
        XCTAssertFalse(fromFile?.message.contains(password) ?? true)
    }

    func testEverySettingComesFromTheFileOrTheEnvironmentWhichWins() throws {
        let file = """
            {"redis": {"url": "rediss://app:\(password)@cache:6380/1", "ca_file": "/run/ca.pem", "connect_timeout_ms": 500,
                       "command_timeout_ms": 200, "prefix": "chat:", "on_failure": "send_without_dedup",
                       "queue_visibility_seconds": 120, "queue_max_length": 500, "queue_retention_seconds": 3600,
                       "queue_max_deliveries": 3, "queue_dead_consumer_seconds": 7200}}
            """
        let fromFile = try load([:], file: file).redis
        XCTAssertEqual(fromFile.url?.host, "cache")
        XCTAssertEqual(fromFile.urlSetting, "redis.url")
        XCTAssertEqual(fromFile.caFile, "/run/ca.pem")
        XCTAssertEqual(fromFile.connectTimeout, .milliseconds(500))
        XCTAssertEqual(fromFile.commandTimeout, .milliseconds(200))
        XCTAssertEqual(fromFile.prefix, "chat:")
        XCTAssertEqual(fromFile.onFailure, .sendWithoutDedup)
        XCTAssertEqual(fromFile.queueVisibilityTimeout, .seconds(120))
        XCTAssertEqual(fromFile.queueMaximumLength, 500)
        XCTAssertEqual(fromFile.queueRetention, .seconds(3600))
        XCTAssertEqual(fromFile.queueMaximumDeliveries, 3)
        XCTAssertEqual(fromFile.queueDeadConsumerAge, .seconds(7200))
        let overridden = try load(["PUSHGW_REDIS_URL": "rediss://other:6390", "PUSHGW_REDIS_PREFIX": "fleet:",
                                   "PUSHGW_REDIS_ON_FAILURE": "refuse", "PUSHGW_REDIS_COMMAND_TIMEOUT_MS": "300",
                                   "PUSHGW_REDIS_QUEUE_VISIBILITY_SECONDS": "5", "PUSHGW_REDIS_QUEUE_MAX_LENGTH": "9",
                                   "PUSHGW_REDIS_QUEUE_MAX_DELIVERIES": "10"], file: file).redis
        XCTAssertEqual(overridden.url?.host, "other")
        XCTAssertEqual(overridden.urlSetting, "PUSHGW_REDIS_URL")
        XCTAssertEqual(overridden.prefix, "fleet:")
        XCTAssertEqual(overridden.onFailure, .refuse)
        XCTAssertEqual(overridden.commandTimeout, .milliseconds(300))
        XCTAssertEqual(overridden.queueVisibilityTimeout, .seconds(5))
        XCTAssertEqual(overridden.queueMaximumLength, 9)
        XCTAssertEqual(overridden.queueMaximumDeliveries, 10)
        XCTAssertEqual(overridden.queueRetention, .seconds(3600), "the file's other keys stay")
        XCTAssertEqual(overridden.connectTimeout, .milliseconds(500), "the file's other keys stay")
        let defaults = try load([:]).redis
        XCTAssertNil(defaults.url)
        XCTAssertEqual(defaults.prefix, "pushgw:")
        XCTAssertEqual(defaults.onFailure, .refuse)
        XCTAssertEqual(defaults.queueVisibilityTimeout, .seconds(60))
        XCTAssertEqual(defaults.queueMaximumLength, 100_000)
        XCTAssertEqual(defaults.queueRetention, .seconds(86_400))
        XCTAssertEqual(defaults.queueMaximumDeliveries, 5)
        XCTAssertEqual(defaults.queueDeadConsumerAge, .seconds(86_400))
    }

    func testEachSettingIsCheckedAndNamed() {
        let url = ["PUSHGW_REDIS_URL": "redis://cache"]
        XCTAssertEqual(error(url.merging(["PUSHGW_REDIS_PREFIX": "{tag}:"]) { $1 })?.setting, "PUSHGW_REDIS_PREFIX")
        XCTAssertEqual(error(url.merging(["PUSHGW_REDIS_PREFIX": String(repeating: "p", count: 65)]) { $1 })?.setting,
                       "PUSHGW_REDIS_PREFIX")
        XCTAssertEqual(error(url.merging(["PUSHGW_REDIS_ON_FAILURE": "ignore"]) { $1 })?.setting, "PUSHGW_REDIS_ON_FAILURE")
        XCTAssertEqual(error(url.merging(["PUSHGW_REDIS_CONNECT_TIMEOUT_MS": "50"]) { $1 })?.setting, "PUSHGW_REDIS_CONNECT_TIMEOUT_MS")
        XCTAssertEqual(error(url.merging(["PUSHGW_REDIS_CA_FILE": "/run/ca.pem"]) { $1 })?.setting, "PUSHGW_REDIS_CA_FILE",
                       "a CA file for a redis:// URL")
        XCTAssertEqual(error(["PUSHGW_REDIS_URL": "rediss://cache", "PUSHGW_REDIS_CA_FILE": "/run/missing.pem"])?.setting,
                       "PUSHGW_REDIS_CA_FILE")
        XCTAssertNil(error(["PUSHGW_REDIS_URL": "rediss://cache", "PUSHGW_REDIS_CA_FILE": "/run/ca.pem"]))
        XCTAssertEqual(error(url.merging(["PUSHGW_REDIS_COMMAND_TIMEOUT_MS": "5000", "PUSHGW_REQUEST_DEADLINE_SECONDS": "5"]) { $1 })?
            .setting, "PUSHGW_REDIS_COMMAND_TIMEOUT_MS", "a command may not outlast the request deadline")
        XCTAssertEqual(error([:], file: #"{"redis": {"url": "redis://cache", "command_timeout_ms": 40000}}"#)?.setting,
                       "redis.command_timeout_ms")
        XCTAssertEqual(error([:], file: #"{"redis": {"url": "redis://cache", "prefx": "a:"}}"#)?.setting, "redis.prefx")
    }

    func testARedisSettingWithoutAURLIsRefusedNotIgnored() {
        XCTAssertEqual(error(["PUSHGW_REDIS_PREFIX": "chat:"])?.setting, "PUSHGW_REDIS_PREFIX")
        XCTAssertEqual(error(["PUSHGW_REDIS_ON_FAILURE": "send_without_dedup"])?.setting, "PUSHGW_REDIS_ON_FAILURE")
        XCTAssertEqual(error([:], file: #"{"redis": {"command_timeout_ms": 200}}"#)?.setting, "redis.command_timeout_ms")
    }

    func testAURLStartsTheGatewayOnTheRedisStoreWhichIsNotReadyUntilItAnswers() async throws {
        var configuration = try load(["PUSHGW_REDIS_URL": "redis://app:\(password)@127.0.0.1:1/0",
                                      "PUSHGW_BEARER_TOKENS_FILE": "/run/tokens", "PUSHGW_LISTEN": "127.0.0.1:0"])
        configuration.apps = [GatewayConfiguration.AppSettings(name: "demo")]
        let gateway = try Gateway(configuration: configuration, logger: Logger(minimumLevel: .error))
        let base = "http://127.0.0.1:\(gateway.server.port)"
        try await waitUntil("/readyz says the store cannot be reached") {
            try await ServiceTestbed.call(base, "GET", "/readyz", bearer: nil).status == 503
        }
        let ready = try await ServiceTestbed.call(base, "GET", "/readyz", bearer: nil)
        let text = String(decoding: ready.body, as: UTF8.self)
        XCTAssertTrue(text.contains("dedup store unavailable"), text)
        XCTAssertTrue(text.contains("127.0.0.1:1"), text)
        XCTAssertFalse(text.contains(password), text)
        await gateway.shutdown(drain: .seconds(1))
    }

    func testATLSStoreWhoseCAFileCannotBeUsedRefusesTheStartNamingIt() throws {
        let caFile = NSTemporaryDirectory() + "pushgw-not-a-ca-\(UUID().uuidString).pem"
        try Data("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n".utf8).write(to: URL(fileURLWithPath: caFile))
        defer { try? FileManager.default.removeItem(atPath: caFile) }
        var configuration = try load(["PUSHGW_REDIS_URL": "rediss://app:\(password)@127.0.0.1:1/0",
                                      "PUSHGW_BEARER_TOKENS_FILE": "/run/tokens", "PUSHGW_LISTEN": "127.0.0.1:0"])
        configuration.apps = [GatewayConfiguration.AppSettings(name: "demo")]
        configuration.redis.caFile = caFile
        XCTAssertThrowsError(try Gateway(configuration: configuration, logger: Logger(minimumLevel: .error))) { error in
            XCTAssertEqual((error as? ServiceError)?.setting, "PUSHGW_REDIS_CA_FILE", "\(error)")
            XCTAssertFalse("\(error)".contains(self.password))
        }
    }
}
