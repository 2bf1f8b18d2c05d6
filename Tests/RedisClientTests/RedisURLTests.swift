import XCTest
import RedisClient

final class RedisURLTests: XCTestCase {
    func testAPlainURLHasDefaults() throws {
        let url = try RedisURL("redis://localhost")
        XCTAssertEqual(url, RedisURL(host: "localhost", port: 6379, usesTLS: false, user: nil, password: nil, database: 0))
    }

    func testEveryPartIsRead() throws {
        let url = try RedisURL("rediss://gw%2Duser:p%40ss%3Aw0rd@redis.internal:6380/3")
        XCTAssertEqual(url, RedisURL(host: "redis.internal", port: 6380, usesTLS: true, user: "gw-user", password: "p@ss:w0rd", database: 3))
    }

    func testAPasswordWithoutAUserIsTheDefaultUsers() throws {
        let url = try RedisURL("redis://:secret@127.0.0.1:7000")
        XCTAssertNil(url.user)
        XCTAssertEqual(url.password, "secret")
    }

    func testAnIPv6HostIsInBrackets() throws {
        let url = try RedisURL("redis://[::1]:7001/2")
        XCTAssertEqual(url.host, "::1")
        XCTAssertEqual(url.port, 7001)
        XCTAssertEqual(url.database, 2)
        XCTAssertEqual(url.description, "redis://[::1]:7001/2")
    }

    func testTheDescriptionNeverShowsThePassword() throws {
        let url = try RedisURL("rediss://alice:hunter2@h:1/4")
        XCTAssertEqual(url.description, "rediss://alice:<redacted>@h:1/4")
        XCTAssertFalse("\(url)".contains("hunter2"))
        XCTAssertEqual(try RedisURL("redis://:hunter2@h").description, "redis://:<redacted>@h:6379/0")
        var dumped = ""
        dump(url, to: &dumped)
        XCTAssertFalse(dumped.contains("hunter2"), dumped)
    }

    func testEachMistakeIsNamed() {
        let cases: [(String, String)] = [
            ("http://h", "scheme"), ("redis://", "host is missing"), ("redis://h:0", "port"), ("redis://h:x", "port"),
            ("redis://h:70000", "port"), ("redis://h/x", "database"), ("redis://h/-1", "database"),
            ("redis://u:%zz@h", "password has a %"), ("redis://%4@h", "user has a %"), ("redis://[::1", "IPv6"),
            ("redis://h/0?x=1", "query"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try RedisURL(text), text) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(text): \(error)")
            }
        }
    }

    func testAnErrorNeverRepeatsThePassword() {
        for text in ["redis://u:topsecret@h:notaport", "redis://u:top/secret@h:x", "redis://u:topsecret@h/topsecret",
                     "redis://u:topsecret@h:topsecret", "rediss://:topsecret@[::1", "redis://u:topsecret@ho st"] {
            XCTAssertThrowsError(try RedisURL(text), text) { error in
                XCTAssertFalse("\(error)".contains("topsecret"), "\(text): \(error)")
                XCTAssertFalse("\(error)".contains("secret"), "\(text): \(error)")
            }
        }
    }

    func testTheSchemeIsReadWithoutRegardToCaseAndAPasswordMayHoldASlash() throws {
        let url = try RedisURL("REDISS://gw:pa/ss@cache:6380/2")
        XCTAssertEqual(url, RedisURL(host: "cache", port: 6380, usesTLS: true, user: "gw", password: "pa/ss", database: 2))
        XCTAssertEqual(url.redacted, "rediss://gw:<redacted>@cache:6380/2")
    }
}
