// swift-tools-version:6.0
import PackageDescription

/// One settings array for every Swift target: Swift 6 mode, explicit existentials,
/// and imports that stay internal unless a module re-exports them on purpose.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "pushgw",
    products: [
        .library(name: "PayloadBuilder", targets: ["PayloadBuilder"]),
        .library(name: "HTTP2Client", targets: ["HTTP2Client"]),
        .library(name: "RedisClient", targets: ["RedisClient"]),
        .library(name: "APNsHTTP2", targets: ["APNsHTTP2"]),
        .library(name: "APNsSimulator", targets: ["APNsSimulator"]),
        .executable(name: "pushgw", targets: ["PushGateway"]),
        .executable(name: "pushgw-bench", targets: ["PushGWBench"]),
        .executable(name: "apns-simulator", targets: ["APNsSimulatorTool"]),
    ],
    targets: [
        // System libraries from Debian, one target per library.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // Tiny C shims for what Swift cannot import (macros, variadic functions).
        .target(name: "COpenSSLShims", dependencies: ["COpenSSL"]),
        .target(name: "CCurlShims", dependencies: ["CCurl"]),
        .target(name: "CMallocShims"),
        .target(name: "CThreadShims"),
        // The commit a release build was stamped with (`scripts/build-release`
        // writes its header), for `pushgw --version`.
        .target(name: "CBuildStamp"),
        // SHA-256's compression with the CPU's SHA extensions, which Swift
        // cannot emit: our own C, no library (PayloadBuilder stays pure).
        .target(name: "CDigestShims"),
        // A memory pool for nghttp2 sessions (nghttp2_mem), by size class.
        .target(name: "CNGHTTP2Shims", dependencies: ["CNGHTTP2"]),

        // The one Swift wrapper of libcurl's easy interface (OAuth token
        // exchange, avatar download).
        .target(name: "Curl", dependencies: ["CCurl", "CCurlShims", "PushGWSync"], swiftSettings: swiftSettings),
        // The lock type every module shares: Mutex, or pthread under ThreadSanitizer.
        .target(name: "PushGWSync", dependencies: ["CThreadShims"], swiftSettings: swiftSettings),
        .target(name: "PayloadBuilder", dependencies: ["CDigestShims"], swiftSettings: swiftSettings),
        // The Swift owner of OpenSSL's keys: PEM private keys, ES256 and RS256 signing,
        // Base64URL and the translation of OpenSSL's error queue.
        .target(name: "OpenSSLCrypto", dependencies: ["PayloadBuilder", "COpenSSL", "COpenSSLShims"], swiftSettings: swiftSettings),
        // Web Push's cryptography: RFC 8291 message encryption (aes128gcm) and
        // RFC 8292 VAPID authorization, on OpenSSLCrypto's primitives.
        .target(name: "WebPush", dependencies: ["OpenSSLCrypto", "PushGWSync"], swiftSettings: swiftSettings),
        // Event-loop threads: one poll over the connections and sources
        // (the HTTP server's daemon) that run on it.
        .target(name: "EventLoops", dependencies: ["PushGWSync"], swiftSettings: swiftSettings),
        // Client sockets: the TCP connect, a plain TCP socket and a TLS socket
        // (OpenSSL, ALPN as asked), one read/write interface; HTTP/2 and RESP sit on it.
        .target(name: "NetworkSockets", dependencies: ["PushGWSync", "OpenSSLCrypto", "Curl", "COpenSSL", "COpenSSLShims"],
                swiftSettings: swiftSettings),
        // HTTP/2 over TLS on nghttp2 and OpenSSL: connection, pool, requests
        // and responses, transport errors. Knows nothing of any provider.
        .target(name: "HTTP2Client",
                dependencies: ["PayloadBuilder", "PushGWSync", "EventLoops", "NetworkSockets", "OpenSSLCrypto", "CNGHTTP2",
                               "CNGHTTP2Shims"],
                swiftSettings: swiftSettings),
        // A RESP2 client of Redis on the event loop and the sockets: plain or
        // TLS, pipelined, AUTH and SELECT on connect, deadlines, reconnects.
        .target(name: "RedisClient", dependencies: ["PushGWSync", "EventLoops", "NetworkSockets", "OpenSSLCrypto"], swiftSettings: swiftSettings),
        // A durable queue of messages with consumer groups (the async notify
        // mode's), on Redis Streams.
        .target(name: "DurableQueue", dependencies: ["RedisClient", "OpenSSLCrypto"], swiftSettings: swiftSettings),
        // APNs: the client on HTTP2Client, ES256 provider tokens, Apple's reasons.
        .target(name: "APNsHTTP2", dependencies: ["PayloadBuilder", "PushGWSync", "HTTP2Client", "OpenSSLCrypto"],
                swiftSettings: swiftSettings),
        // FCM HTTP v1: OAuth2 service-account tokens (RS256, libcurl) and the
        // messages:send client on HTTP2Client.
        .target(
            name: "FCMClient",
            dependencies: ["HTTP2Client", "NetworkSockets", "OpenSSLCrypto", "PayloadBuilder", "PushGWSync", "Curl"],
            swiftSettings: swiftSettings
        ),
        // Direct web push (RFC 8030): one HTTP/2 client per push service
        // origin with its VAPID authorization, each message encrypted.
        .target(name: "WebPushClient", dependencies: ["HTTP2Client", "NetworkSockets", "WebPush", "PayloadBuilder", "PushGWSync", "EventLoops", "Curl"],
                swiftSettings: swiftSettings),
        // The gateway's HTTP/1.1 server on libmicrohttpd (one daemon per event
        // loop, suspend/resume, limits, request screening): the only code that
        // imports libmicrohttpd.
        .target(
            name: "GatewayHTTP",
            dependencies: ["PayloadBuilder", "PushGWSync", "EventLoops", "CMicroHTTPD"],
            swiftSettings: swiftSettings
        ),
        // The service: routes and auth, configuration, dispatcher,
        // avatar resolver, metrics, and the Redis stores of a fleet. A library so end-to-end tests run it in-process.
        .target(
            name: "GatewayService",
            dependencies: ["PayloadBuilder", "PushGWSync", "EventLoops", "OpenSSLCrypto", "NetworkSockets", "HTTP2Client", "APNsHTTP2", "FCMClient", "Curl",
                           "GatewayHTTP", "RedisClient", "DurableQueue", "WebPush", "WebPushClient"],
            swiftSettings: swiftSettings
        ),
        // The no-credentials demo: the simulators started and injected into
        // the service's configuration (the service itself never links them).
        .target(name: "PushGWDemo", dependencies: ["GatewayService", "APNsSimulator", "APNsHTTP2", "OpenSSLCrypto", "WebPush", "PayloadBuilder"],
                swiftSettings: swiftSettings),
        .executableTarget(
            name: "PushGateway",
            dependencies: ["PayloadBuilder", "GatewayService", "PushGWDemo", "PushGWSync", "WebPush", "CMallocShims", "CBuildStamp"],
            swiftSettings: swiftSettings
        ),
        // A strict APNs provider API simulator (HTTP/2 over TLS), in-process for
        // tests and as `apns-simulator` for the demo and benchmarks.
        .target(name: "APNsSimulator", dependencies: ["PushGWSync", "COpenSSL", "COpenSSLShims", "CNGHTTP2"],
                swiftSettings: swiftSettings),
        .executableTarget(name: "APNsSimulatorTool", dependencies: ["APNsSimulator"], swiftSettings: swiftSettings),
        .executableTarget(name: "PushGWBench",
                         dependencies: ["PayloadBuilder", "EventLoops", "OpenSSLCrypto", "HTTP2Client", "APNsHTTP2", "APNsSimulator", "FCMClient",
                                        "WebPush", "WebPushClient"],
                         swiftSettings: swiftSettings),
        .executableTarget(name: "PayloadFuzzer", dependencies: ["PayloadBuilder"], swiftSettings: swiftSettings),

        // Helpers shared by the test targets: a seeded random generator, a clock
        // tests move by hand, and waiting on a condition.
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: swiftSettings),
        .testTarget(
            name: "APNsHTTP2Tests",
            dependencies: ["APNsHTTP2", "HTTP2Client", "EventLoops", "OpenSSLCrypto", "APNsSimulator", "PayloadBuilder", "PushGWSync", "COpenSSL", "COpenSSLShims", "CNGHTTP2",
                           "CNGHTTP2Shims", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HTTP2ClientTests",
            dependencies: ["HTTP2Client", "NetworkSockets", "PayloadBuilder", "PushGWSync", "CNGHTTP2", "CNGHTTP2Shims", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "APNsSimulatorTests",
            dependencies: ["APNsSimulator", "APNsHTTP2", "HTTP2Client", "OpenSSLCrypto", "PushGWSync", "COpenSSL", "COpenSSLShims", "CNGHTTP2", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FCMClientTests",
            dependencies: ["FCMClient", "HTTP2Client", "NetworkSockets", "Curl", "EventLoops", "OpenSSLCrypto", "APNsSimulator", "PayloadBuilder", "COpenSSL",
                           "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GatewayServiceTests",
            dependencies: ["GatewayService", "PushGWDemo", "GatewayHTTP", "PayloadBuilder", "PushGWSync", "EventLoops", "OpenSSLCrypto",
                           "NetworkSockets", "HTTP2Client", "APNsHTTP2", "FCMClient", "APNsSimulator", "DurableQueue", "RedisClient",
                           "WebPush", "WebPushClient", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RedisClientTests",
            dependencies: ["RedisClient", "EventLoops", "NetworkSockets", "PushGWSync", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DurableQueueTests",
            dependencies: ["DurableQueue", "RedisClient", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PayloadBuilderTests",
            dependencies: ["PayloadBuilder", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GatewayHTTPTests",
            dependencies: ["GatewayHTTP", "EventLoops", "PayloadBuilder"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "OpenSSLCryptoTests",
            dependencies: ["OpenSSLCrypto", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WebPushTests",
            dependencies: ["WebPush", "OpenSSLCrypto", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        // The README's dependency rule, checked on the sources' imports.
        .testTarget(name: "LayeringTests", swiftSettings: swiftSettings),
        .testTarget(
            name: "CurlTests",
            dependencies: ["Curl"],
            swiftSettings: swiftSettings
        ),
        // The `pushgw` executable as built, run as a process.
        .testTarget(name: "PushGatewayTests", dependencies: ["WebPush"], swiftSettings: swiftSettings),
        .testTarget(
            name: "CLibrariesSmokeTests",
            dependencies: ["COpenSSL", "CCurl", "CNGHTTP2", "CMicroHTTPD", "COpenSSLShims", "CCurlShims"],
            swiftSettings: swiftSettings
        ),
    ]
)
