// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "CareSync",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "CarePlan", targets: ["CarePlan"]),
        .library(name: "CarePlanStore", targets: ["CarePlanStore"]),
        .library(name: "CarePlanDocument", targets: ["CarePlanDocument"]),
        .library(name: "SyncProtocol", targets: ["SyncProtocol"]),
        .library(name: "SyncNode", targets: ["SyncNode"]),
        .library(name: "Discovery", targets: ["Discovery"]),
        .library(name: "Reminders", targets: ["Reminders"]),
        .library(name: "NodeIdentity", targets: ["NodeIdentity"]),
        .library(name: "CareFHIR", targets: ["CareFHIR"]),
        .executable(name: "caresync", targets: ["caresync"]),
        .executable(name: "caresync-bench", targets: ["caresync-bench"]),
        .executable(name: "watch-sim", targets: ["watch-sim"]),
        .executable(name: "widget-sim", targets: ["widget-sim"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // Value types of the care plan and schedule expansion. No I/O.
        .target(name: "CarePlan"),
        // The JSON care-plan document: decoding with path-aware errors and validation.
        .target(name: "CarePlanDocument", dependencies: ["CarePlan"]),
        // The wire protocol of Protocol/: framing, messages, version negotiation. No sockets.
        .target(
            name: "SyncProtocol",
            dependencies: [
                "CarePlan",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            exclude: ["Generated/README.md"]
        ),
        // The authoritative store on SQLite.
        .target(
            name: "CarePlanStore",
            dependencies: ["CarePlan", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // DNS-SD through Avahi's Bonjour compatibility library.
        .systemLibrary(name: "CDNSSD", providers: [.apt(["libavahi-compat-libdnssd-dev"])]),
        // Advertise, browse and resolve services on the local network.
        .target(name: "Discovery", dependencies: ["CDNSSD"]),
        // Reminders at the primary for events not yet done, planned on an injected clock.
        .target(name: "Reminders", dependencies: ["CarePlan", "CarePlanStore"]),
        // Each node's persistent key pair and self-signed certificate; its fingerprint.
        .target(
            name: "NodeIdentity",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // FHIR medication orders in: models, schedules, localized dosage instructions, server search.
        .target(
            name: "CareFHIR",
            dependencies: [
                "CarePlan", "CarePlanStore", .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            resources: [.copy("Languages")]
        ),
        // Primary and companion nodes over TCP.
        .target(
            name: "SyncNode",
            dependencies: [
                "CarePlan", "CarePlanStore", "NodeIdentity", "Reminders", "SyncProtocol",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "caresync",
            dependencies: [
                "CareFHIR", "CarePlan", "CarePlanStore", "CarePlanDocument", "Discovery", "NodeIdentity", "Reminders",
                "SyncNode", "SyncProtocol", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "caresync-bench",
            dependencies: [
                "CarePlan", "CarePlanStore", "CarePlanDocument", "Discovery", "Reminders", "SimulatorSupport", "SyncNode",
                "SyncProtocol", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Companion simulators: a watch app and a home-screen widget.
        .target(
            name: "SimulatorSupport",
            dependencies: [
                "Discovery", "SyncNode", "SyncProtocol", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Simulators/Support"
        ),
        .executableTarget(
            name: "watch-sim",
            dependencies: [
                "SimulatorSupport", "SyncNode", "SyncProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Simulators/Watch"
        ),
        .executableTarget(
            name: "widget-sim",
            dependencies: [
                "SimulatorSupport", "SyncNode", "SyncProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Simulators/Widget"
        ),
        .testTarget(name: "CarePlanTests", dependencies: ["CarePlan"]),
        .testTarget(name: "CarePlanDocumentTests", dependencies: ["CarePlanDocument"]),
        .testTarget(name: "RemindersTests", dependencies: ["Reminders", "CarePlanStore"]),
        .testTarget(name: "NodeIdentityTests", dependencies: ["NodeIdentity"]),
        .testTarget(
            name: "SyncNodeTests",
            dependencies: ["SyncNode", "SyncProtocol", "CarePlanStore", .product(name: "NIOEmbedded", package: "swift-nio")]
        ),
        .testTarget(name: "CareFHIRTests", dependencies: ["CareFHIR", "CarePlan", "CarePlanStore"]),
        .testTarget(name: "CarePlanStoreTests", dependencies: ["CarePlanStore", "CarePlanDocument"]),
        .testTarget(
            name: "SyncProtocolTests",
            dependencies: ["SyncProtocol", .product(name: "NIOEmbedded", package: "swift-nio")]
        ),
        // End-to-end: runs the built executables as processes.
        // End-to-end: the built executables as processes, and the real mDNS daemon.
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["Discovery", "SyncProtocol", .product(name: "NIOCore", package: "swift-nio")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
