// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "CareSync",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "CarePlan", targets: ["CarePlan"]),
        .library(name: "CarePlanStore", targets: ["CarePlanStore"]),
        .library(name: "CarePlanDocument", targets: ["CarePlanDocument"]),
        .executable(name: "caresync", targets: ["caresync"]),
        .executable(name: "caresync-bench", targets: ["caresync-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // Value types of the care plan and schedule expansion. No I/O.
        .target(name: "CarePlan"),
        // The JSON care-plan document: decoding with path-aware errors and validation.
        .target(name: "CarePlanDocument", dependencies: ["CarePlan"]),
        // The authoritative store on SQLite.
        .target(
            name: "CarePlanStore",
            dependencies: ["CarePlan", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .executableTarget(
            name: "caresync",
            dependencies: [
                "CarePlan", "CarePlanStore", "CarePlanDocument",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "caresync-bench",
            dependencies: [
                "CarePlan", "CarePlanStore", "CarePlanDocument",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "CarePlanTests", dependencies: ["CarePlan"]),
        .testTarget(name: "CarePlanDocumentTests", dependencies: ["CarePlanDocument"]),
        .testTarget(name: "CarePlanStoreTests", dependencies: ["CarePlanStore", "CarePlanDocument"]),
        // End-to-end: runs the built executables as processes.
        .testTarget(name: "CommandLineTests"),
    ],
    swiftLanguageModes: [.v6]
)
