// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets for CareSync's parsers, kept out of the main package so that its
// `swift build` and `swift test` never see them. Built and run by scripts/fuzz:
//
//     swift build -c release --package-path Fuzz --scratch-path .build-fuzz \
//         --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address
//
// Each executable defines `LLVMFuzzerTestOneInput`; libFuzzer supplies `main`.

/// One fuzz target: `Sources/NAME/NAME.swift`, built as a library file (no top-level code).
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name, dependencies: ["FuzzSupport"] + dependencies,
        swiftSettings: [.unsafeFlags(["-parse-as-library"])])
}

let package = Package(
    name: "CareSyncFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "CareSync", path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    ],
    targets: [
        // What every target shares: reading the input, and stopping on a broken property.
        .target(name: "FuzzSupport", dependencies: [.product(name: "CarePlan", package: "CareSync")]),
        fuzzTarget("fuzz-frame", [
            .product(name: "SyncProtocol", package: "CareSync"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
        ]),
        fuzzTarget("fuzz-envelope", [
            .product(name: "SyncProtocol", package: "CareSync"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "SwiftProtobuf", package: "swift-protobuf"),
        ]),
        fuzzTarget("fuzz-wire", [
            .product(name: "CarePlan", package: "CareSync"),
            .product(name: "SyncProtocol", package: "CareSync"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "SwiftProtobuf", package: "swift-protobuf"),
        ]),
        fuzzTarget("fuzz-plan-document", [
            .product(name: "CarePlan", package: "CareSync"),
            .product(name: "CarePlanDocument", package: "CareSync"),
        ]),
        fuzzTarget("fuzz-fhir-import", [
            .product(name: "CarePlan", package: "CareSync"),
            .product(name: "CareFHIR", package: "CareSync"),
            .product(name: "CareLanguage", package: "CareSync"),
        ]),
        fuzzTarget("fuzz-pairing", [
            .product(name: "NodeIdentity", package: "CareSync"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
