// swift-tools-version:6.1
import PackageDescription

// Programs and the test bundle link with LLVM's lld, which the toolchain ships, not the system's
// gold: each of the six executables (120 to 234 MB in a debug build) links in under a third of
// the time, about 25 s of a fresh clone's build on two cores (issue 54).
let linkedWithLLD: [LinkerSetting] = [.unsafeFlags(["-use-ld=lld"], .when(platforms: [.linux]))]

let package = Package(
    name: "CareSync",
    platforms: [.macOS(.v14)],
    // What another Swift project would embed (README, "Embedding CareSync"): the record, the
    // sync nodes and what their configuration names, FHIR, the words and what the record shows,
    // and a kit for multi-process integration tests. The programs are products to run.
    products: [
        .library(name: "CarePlan", targets: ["CarePlan"]),
        .library(name: "CarePlanDocument", targets: ["CarePlanDocument"]),
        .library(name: "CarePlanStore", targets: ["CarePlanStore"]),
        .library(name: "CareCore", targets: ["CareCore"]),
        .library(name: "SyncProtocol", targets: ["SyncProtocol"]),
        .library(name: "SyncNode", targets: ["SyncNode"]),
        .library(name: "NodeIdentity", targets: ["NodeIdentity"]),
        .library(name: "Discovery", targets: ["Discovery"]),
        .library(name: "Reminders", targets: ["Reminders"]),
        .library(name: "CareBackup", targets: ["CareBackup"]),
        .library(name: "Clocks", targets: ["Clocks"]),
        .library(name: "Waiting", targets: ["Waiting"]),
        .library(name: "CareFHIR", targets: ["CareFHIR"]),
        .library(name: "CareLanguage", targets: ["CareLanguage"]),
        .library(name: "CareInsights", targets: ["CareInsights"]),
        .library(name: "CareReport", targets: ["CareReport"]),
        .library(name: "CareWeb", targets: ["CareWeb"]),
        .library(
            name: "CareSyncTestKit",
            targets: ["SimulatorSupport", "FHIRTestServer", "ChildProcess", "CommandOptions", "MetricsEndpoint"]
        ),
        .executable(name: "caresync", targets: ["caresync"]),
        .executable(name: "watch-sim", targets: ["watch-sim"]),
        .executable(name: "widget-sim", targets: ["widget-sim"]),
        .executable(name: "household-sim", targets: ["household-sim"]),
        .executable(name: "fhir-test-server", targets: ["fhir-test-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // Value types of the care plan and schedule expansion. No I/O.
        .target(name: "CarePlan"),
        // Standard JSON (RFC 8259) only: the syntax check before Foundation's lenient parsers.
        .target(name: "StrictJSON"),
        // The JSON care-plan document: decoding with path-aware errors and validation.
        .target(name: "CarePlanDocument", dependencies: ["CarePlan", "StrictJSON"]),
        // The wire protocol of Protocol/: framing, messages, version negotiation. No sockets.
        .target(
            name: "SyncProtocol",
            dependencies: [
                "CarePlan", "RelayProtocol",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            exclude: ["Generated/README.md"]
        ),
        // Syncthing's Relay Protocol v1, written from its specification: messages, relay ids and
        // addresses. No sockets.
        .target(name: "RelayProtocol", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // Reaching relays: a device waiting on one for sessions, a session asked for and
        // joined; the bytes of a session are left to whoever speaks over it.
        .target(
            name: "RelayTransport",
            dependencies: [
                "RelayProtocol", "NodeIdentity", "Clocks", "Waiting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The one clock: the instant now and sleeps on the same clock, injected everywhere.
        .target(name: "Clocks"),
        // Waiting well: backoff, timeouts, results waited for, broadcasts, blocking work.
        .target(name: "Waiting", dependencies: ["Clocks"]),
        // Whole lines to standard output and error from any thread, never interleaved: product
        // output (text or JSON lines, made by one encoder) and log records.
        .target(
            name: "LineOutput",
            dependencies: [
                "CarePlan", "StrictJSON", "Clocks", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Child processes started with no signal blocked, whichever thread starts them.
        .target(name: "ChildProcess"),
        // Files and directories only their owner may read, written in one piece.
        .target(name: "PrivateFiles"),
        // A desktop notification through notify-send, where there is one.
        .target(name: "DesktopNotification", dependencies: ["ChildProcess", .product(name: "Logging", package: "swift-log")]),
        // The authoritative store on SQLite.
        .target(
            name: "CarePlanStore",
            dependencies: [
                "CarePlan", "PrivateFiles", "Clocks", "Waiting", .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the hot statements (DirectStatement).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The care core: the use cases through which the record changes, the same for every
        // device and channel (the sync node, the care app, the command line).
        .target(name: "CareCore", dependencies: ["CarePlan", "CarePlanStore"]),
        // DNS-SD through Avahi's Bonjour compatibility library.
        .systemLibrary(name: "CDNSSD", providers: [.apt(["libavahi-compat-libdnssd-dev"])]),
        // Advertise, browse and resolve services on the local network.
        .target(
            name: "Discovery",
            dependencies: [
                "CDNSSD", "Waiting", .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Reminders at the primary for events not yet done, and alerts for doses missed,
        // planned on an injected clock.
        .target(
            name: "Reminders",
            dependencies: ["CareCore", "CarePlan", "CarePlanStore", "Clocks", "Waiting", .product(name: "Logging", package: "swift-log")]),
        // Each node's persistent key pair and self-signed certificate; its fingerprint;
        // pairing codes and the proofs that bind them to both certificates.
        .target(
            name: "NodeIdentity",
            dependencies: [
                "PrivateFiles",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // The words of each language from its data file: phrases, CLDR plural forms, numbers.
        .target(name: "CareLanguage", resources: [.copy("Languages")]),
        // What the record shows: alerts, comparisons and tips, and grouped bar charts. Pure, on
        // the store's events.
        .target(name: "CareInsights", dependencies: ["CarePlan", "CareLanguage"]),
        // HTML and SVG written by hand, escaped and well-formed: the report's and the web app's.
        .target(name: "Markup"),
        // The care report: one self-contained XHTML document (inline CSS and SVG), and its PDF
        // by headless Chromium.
        .target(name: "CareReport", dependencies: ["ChildProcess", "CareInsights", "CareLanguage", "CarePlan", "CarePlanStore", "Markup", "Waiting"]),
        // The care app in a browser, served beside the primary on its store: sign-in with a
        // one-time code, pages that work without JavaScript, live updates by Server-Sent Events.
        .target(
            name: "CareWeb",
            dependencies: [
                "CareBackup", "CareCore", "CareFHIR", "CareInsights", "CareLanguage", "CarePlan", "CarePlanStore", "CareReport", "HTTPServing", "Markup", "NodeIdentity",
                "Clocks", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Backups of a running primary's store and identity, sealed with a passphrase (scrypt,
        // ChaChaPoly), and their restore on a new machine.
        .target(
            name: "CareBackup",
            dependencies: [
                "CarePlan", "CarePlanStore", "PrivateFiles", "Clocks", "Waiting",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // FHIR in and out: orders to schedules and localized instructions, server search, doses and
        // measurements to a server in transactions, bearer tokens and SMART Backend Services.
        .target(
            name: "CareFHIR",
            dependencies: [
                "CareCore", "CareLanguage", "CarePlan", "CarePlanStore", "PrivateFiles", "StrictJSON", "Clocks", "Waiting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The properties each parser keeps on any bytes, for the fuzzers: libFuzzer's (Fuzz/,
        // scripts/fuzz) and the suite's short mutation run (FuzzTests).
        .target(
            name: "FuzzProperties",
            dependencies: [
                "CareFHIR", "CareLanguage", "CarePlan", "CarePlanDocument", "CarePlanStore", "NodeIdentity", "SyncProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]
        ),
        // The process's metrics in Prometheus's text format over HTTP on loopback (--metrics-port).
        .target(
            name: "MetricsEndpoint",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                "HTTPServing",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // How every HTTP server is served: Hummingbird's server without Application's timer.
        .target(
            name: "HTTPServing",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The options every long-running program shares: --log-level and --metrics-port.
        .target(
            name: "CommandOptions",
            dependencies: [
                "CareBackup", "LineOutput", "MetricsEndpoint", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Primary and companion nodes over mutually authenticated TLS 1.3.
        .target(
            name: "SyncNode",
            dependencies: [
                "CareBackup", "CareCore", "CarePlan", "CarePlanStore", "NodeIdentity", "PrivateFiles", "RelayProtocol", "RelayTransport",
                "Reminders", "SyncProtocol", "Clocks", "Waiting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "caresync",
            dependencies: [
                "CareBackup", "CareCore", "CareFHIR", "CareInsights", "CareLanguage", "CarePlan", "CarePlanStore", "CarePlanDocument", "CareReport", "CareWeb",
                "CommandOptions", "DesktopNotification", "Discovery",
                "LineOutput",
                "MetricsEndpoint",
                "NodeIdentity",
                "PrivateFiles", "RelayProtocol", "RelayTransport", "Reminders",
                "SyncNode", "Clocks", "Waiting", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            linkerSettings: linkedWithLLD
        ),
        // Companion simulators: a watch app, a home-screen widget and a household member's device.
        .target(
            name: "SimulatorSupport",
            dependencies: [
                "CareBackup", "CommandOptions", "DesktopNotification", "Discovery", "LineOutput", "MetricsEndpoint", "NodeIdentity", "SyncNode", "SyncProtocol",
                "Clocks", "Waiting", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Simulators/Support"
        ),
        .executableTarget(
            name: "watch-sim",
            dependencies: [
                "CommandOptions", "MetricsEndpoint", "SimulatorSupport", "SyncNode",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Simulators/Watch",
            linkerSettings: linkedWithLLD
        ),
        .executableTarget(
            name: "widget-sim",
            dependencies: [
                "SimulatorSupport", "SyncNode",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Simulators/Widget",
            linkerSettings: linkedWithLLD
        ),
        .executableTarget(
            name: "household-sim",
            dependencies: [
                "CareBackup", "CarePlan", "CommandOptions", "DesktopNotification", "LineOutput", "MetricsEndpoint", "NodeIdentity", "PrivateFiles",
                "SimulatorSupport", "StrictJSON", "SyncNode",
                "Waiting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Simulators/Household",
            linkerSettings: linkedWithLLD
        ),
        // A small FHIR R4 server on loopback with SMART Backend Services' token endpoint: what
        // exports are tested, demonstrated and measured against.
        .target(
            name: "FHIRTestServer",
            dependencies: [
                "HTTPServing", "Clocks", "StrictJSON", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Simulators/FHIRServer"
        ),
        .executableTarget(
            name: "fhir-test-server",
            dependencies: [
                "FHIRTestServer", "LineOutput", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Simulators/FHIRServerCommand",
            linkerSettings: linkedWithLLD
        ),
        .testTarget(name: "CarePlanTests", dependencies: ["CarePlan", "TestSupport"], linkerSettings: linkedWithLLD),
        .testTarget(name: "CarePlanDocumentTests", dependencies: ["CarePlanDocument", "TestSupport"], linkerSettings: linkedWithLLD),
        .testTarget(name: "CareInsightsTests", dependencies: ["CareInsights", "CareLanguage", "CarePlan", "CarePlanStore", "TestSupport"], linkerSettings: linkedWithLLD),
        .testTarget(name: "RemindersTests", dependencies: ["Reminders", "CarePlanStore", "TestSupport"], linkerSettings: linkedWithLLD),
        .testTarget(name: "NodeIdentityTests", dependencies: ["ChildProcess", "NodeIdentity", "TestSupport"], linkerSettings: linkedWithLLD),
        .testTarget(name: "PrivateFilesTests", dependencies: ["PrivateFiles", "TestSupport"], linkerSettings: linkedWithLLD),
        .testTarget(name: "WaitingTests", dependencies: ["TestSupport", "Waiting"], linkerSettings: linkedWithLLD),
        .testTarget(
            name: "SimulatorSupportTests",
            dependencies: ["CarePlan", "Discovery", "SimulatorSupport", "SyncNode", "TestSupport", .product(name: "Logging", package: "swift-log")],
            linkerSettings: linkedWithLLD
        ),
        .testTarget(name: "ChildProcessTests", dependencies: ["ChildProcess", "TestSupport"], linkerSettings: linkedWithLLD),
        .testTarget(name: "LineOutputTests", dependencies: ["LineOutput", "TestSupport", "Waiting", .product(name: "Logging", package: "swift-log")], linkerSettings: linkedWithLLD),
        .testTarget(
            name: "SyncNodeTests",
            dependencies: [
                "CareBackup", "CareCore", "SyncNode", "SyncProtocol", "CarePlanStore", "NodeIdentity", "TestSupport", "Clocks", "Waiting",
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"), .product(name: "GRDB", package: "GRDB.swift"),
            ],
            linkerSettings: linkedWithLLD
        ),
        .testTarget(
            name: "CareFHIRTests",
            dependencies: [
                "CareFHIR", "CareLanguage", "CarePlan", "CarePlanStore", "ChildProcess", "FHIRTestServer", "TestSupport", "Clocks", "Waiting",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: linkedWithLLD
        ),
        .testTarget(name: "CareBackupTests", dependencies: ["CareBackup", "CarePlan", "CarePlanStore", "TestSupport"], linkerSettings: linkedWithLLD),
        .testTarget(name: "CareLanguageTests", dependencies: ["CareLanguage", "TestSupport"], linkerSettings: linkedWithLLD),
        .testTarget(
            name: "CareReportTests",
            dependencies: [
                "CareReport", "CareInsights", "CareLanguage", "CarePlan", "CarePlanDocument", "CarePlanStore", "ChildProcess", "TestSupport", "Waiting",
            ],
            linkerSettings: linkedWithLLD
        ),
        .testTarget(
            name: "CareWebTests",
            dependencies: [
                "CareBackup", "CareCore", "CareFHIR", "CareLanguage", "CareWeb", "CarePlan", "CarePlanStore", "FHIRTestServer", "Markup", "NodeIdentity", "TestSupport",
                "Waiting", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            linkerSettings: linkedWithLLD
        ),
        .testTarget(
            name: "CarePlanStoreTests",
            dependencies: ["CareCore", "CarePlanStore", "CarePlanDocument", "TestSupport", "Waiting", .product(name: "Logging", package: "swift-log")],
            linkerSettings: linkedWithLLD
        ),
        .testTarget(name: "RelayProtocolTests", dependencies: ["RelayProtocol", "TestSupport"], linkerSettings: linkedWithLLD),
        .testTarget(name: "CareCoreTests", dependencies: ["CareCore", "CarePlan", "CarePlanStore", "TestSupport"], linkerSettings: linkedWithLLD),
        .testTarget(name: "FuzzTests", dependencies: ["ChildProcess", "FuzzProperties", "TestSupport", "Waiting"], linkerSettings: linkedWithLLD),
        .testTarget(
            name: "SyncProtocolTests",
            dependencies: ["SyncProtocol", "RelayProtocol", "StrictJSON", "TestSupport", .product(name: "NIOEmbedded", package: "swift-nio")],
            linkerSettings: linkedWithLLD
        ),
        // What several test targets share.
        .target(name: "TestSupport", dependencies: ["CareCore", "CarePlan", "CarePlanStore", "Clocks", "Waiting"], path: "Tests/TestSupport"),
        // End-to-end: the built executables as processes, and the real mDNS daemon.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "CarePlanStore", "ChildProcess", "Discovery", "FHIRTestServer", "NodeIdentity", "RelayProtocol", "RelayTransport", "SyncNode", "SyncProtocol", "TestSupport",
                "Clocks", "Waiting",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: linkedWithLLD
        ),
    ],
    swiftLanguageModes: [.v6]
)
