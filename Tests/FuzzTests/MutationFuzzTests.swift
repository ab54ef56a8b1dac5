import ChildProcess
import Foundation
import FuzzProperties
import Testing
import TestSupport

/// The short fuzz run of the suite: every fuzz target's properties on its seeds, each as it
/// is, then on a few thousand inputs mutated from them. The long runs, coverage-guided and
/// under AddressSanitizer, are `scripts/fuzz`'s (libFuzzer, same properties, same seeds).
///
/// CARESYNC_FUZZ_INPUTS sets the number of mutated inputs per target (default 5,000) and
/// CARESYNC_FUZZ_START the generator's start (default fixed: every run tries the same inputs).
/// A run also stops after 30 s of a target, whatever the count, and says how far it got.
@Suite struct MutationFuzzTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// Where an input that broke a property is kept, for `scripts/fuzz` or a test to replay.
    static let failures = repository.appendingPathComponent(".build/fuzz-failures")
    static let environment = ProcessInfo.processInfo.environment
    static let inputs = environment["CARESYNC_FUZZ_INPUTS"].flatMap(Int.init) ?? 5_000
    static let start = environment["CARESYNC_FUZZ_START"].flatMap(UInt64.init) ?? 0x00C0_FFEE

    let scratch = Scratch()

    @Test(arguments: FuzzTarget.allCases)
    func propertiesHoldOnTheSeedsAndOnMutationsOfThem(target: FuzzTarget) throws {
        let (seeds, dictionary) = try makeSeeds(for: target)
        #expect(!seeds.isEmpty, "no seeds for \(target.rawValue)")
        for (name, seed) in seeds {
            guard try holds(target, seed, from: "seed \(name)") else { return }
        }
        var mutator = Mutator(seeds: seeds.map(\.1), dictionary: dictionary, start: Self.start)
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        var tried = 0
        while tried < Self.inputs, clock.now < deadline {
            guard try holds(target, mutator.next(), from: "mutated input \(tried) of start \(Self.start)") else { return }
            tried += 1
        }
        print("fuzz \(target.rawValue): \(seeds.count) seeds and \(tried) mutated inputs, properties held")
        #expect(tried > 0)
    }

    /// Runs one input; a broken property fails the test (the first only: one input is enough
    /// to reproduce) with the input saved beside it.
    private func holds(_ target: FuzzTarget, _ input: [UInt8], from origin: String) throws -> Bool {
        do {
            try target.check(input)
            return true
        } catch {
            let directory = Self.failures.appendingPathComponent(target.rawValue)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let file = directory.appendingPathComponent("\(UUID().uuidString.prefix(8))")
            try Data(input).write(to: file)
            Issue.record("""
                \(target.rawValue), \(origin): \(error)
                input saved in \(file.path); replay it with FUZZ_TARGET=\(target.rawValue) \
                .build-fuzz/release/caresync-fuzz \(file.path) (after scripts/fuzz builds it)
                """)
            return false
        }
    }

    /// The target's seeds (name and bytes, by name) and dictionary words, as scripts/fuzz-seeds writes them.
    private func makeSeeds(for target: FuzzTarget) throws -> ([(String, [UInt8])], [[UInt8]]) {
        let process = Process()
        process.executableURL = Self.repository.appendingPathComponent("scripts/fuzz-seeds")
        process.arguments = [scratch.url.path]
        try process.runUnblocked()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "scripts/fuzz-seeds failed")
        let directory = scratch.url.appendingPathComponent(target.rawValue)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let seeds = try names.map { ($0, [UInt8](try Data(contentsOf: directory.appendingPathComponent($0)))) }
        let dictionary = (try? String(contentsOf: scratch.url.appendingPathComponent("\(target.rawValue).dict"), encoding: .utf8))
            .map { text in
                text.split(separator: "\n").compactMap { line in
                    (try? JSONDecoder().decode(String.self, from: Data(line.utf8))).map { Array($0.utf8) }
                }
            } ?? []
        return (seeds, dictionary)
    }
}
