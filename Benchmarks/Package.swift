// swift-tools-version:6.1
import PackageDescription

// CareSync's benchmarks, apart from the product (as swift-nio keeps its own): `swift build`
// of CareSync builds and links none of this. `scripts/bench` builds it and runs it,
// `scripts/bench --check` runs its smoke tests (Docs/Benchmarks.md).
let package = Package(
    name: "CareSyncBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "CareSync", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // package-benchmark, for the micro-benchmarks of Benchmarks/: percentiles, allocations,
        // thresholds. Its default RuntimeInterposer trait needs a package this machine lacks.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The plans and answers every benchmark measures with.
        .target(name: "BenchmarkWorkloads", dependencies: [.product(name: "CarePlan", package: "CareSync")]),
        // The care core's hot operations through public API, run by `swift package benchmark`.
        .executableTarget(
            name: "CareCoreBenchmarks",
            dependencies: [
                "BenchmarkWorkloads",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "CareCore", package: "CareSync"), .product(name: "CarePlan", package: "CareSync"),
                .product(name: "CarePlanStore", package: "CareSync"),
            ],
            path: "Benchmarks/CareCoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // libmosquitto, loaded at run time by the peer comparison (the benchmark builds without it).
        .target(name: "CMosquitto", linkerSettings: [.linkedLibrary("dl")]),
        // Every benchmark, a subcommand each; it measures and prints figures, it judges nothing.
        .executableTarget(
            name: "caresync-bench",
            dependencies: [
                "BenchmarkWorkloads", "CMosquitto",
                .product(name: "CareCore", package: "CareSync"), .product(name: "CareFHIR", package: "CareSync"),
                .product(name: "CarePlan", package: "CareSync"), .product(name: "CarePlanStore", package: "CareSync"),
                .product(name: "CarePlanDocument", package: "CareSync"), .product(name: "CareWeb", package: "CareSync"),
                .product(name: "Discovery", package: "CareSync"), .product(name: "NodeIdentity", package: "CareSync"),
                .product(name: "Reminders", package: "CareSync"), .product(name: "SyncNode", package: "CareSync"),
                .product(name: "SyncProtocol", package: "CareSync"), .product(name: "Clocks", package: "CareSync"),
                .product(name: "Waiting", package: "CareSync"), .product(name: "CareSyncTestKit", package: "CareSync"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // Each benchmark on a tiny workload, every figure it promises printed.
        .testTarget(
            name: "BenchmarkSmokeTests", dependencies: ["caresync-bench", .product(name: "CareSyncTestKit", package: "CareSync")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
