// swift-tools-version:6.1
import PackageDescription

// The libFuzzer build of CareSync's fuzz targets (the properties of the main package's
// FuzzProperties), kept out of the main package so that its `swift build` and `swift test`
// never build with the sanitizers. Built and run by scripts/fuzz:
//
//     swift build -c release --package-path Fuzz --scratch-path .build-fuzz \
//         --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address
//
// One executable, `caresync-fuzz`, runs the target that FUZZ_TARGET names; it defines
// `LLVMFuzzerTestOneInput` and libFuzzer supplies `main`.
let package = Package(
    name: "CareSyncFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "CareSync", path: "..")],
    targets: [
        .executableTarget(
            name: "caresync-fuzz", dependencies: [.product(name: "FuzzProperties", package: "CareSync")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])])
    ],
    swiftLanguageModes: [.v6]
)
