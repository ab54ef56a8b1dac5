import ChildProcess
import Foundation
import FuzzProperties
import Testing
import TestSupport
import Waiting

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

    /// The first input that broke a property, or how many mutated inputs held.
    enum Outcome: Sendable {
        case held(seeds: Int, mutated: Int)
        case broken(origin: String, error: String, input: [UInt8])
    }

    // The inputs run on a thread of their own, not on the test's: a synchronous loop of up to
    // 30 s held one of the two threads Swift's tasks have here, two targets at once held both,
    // and every in-process server of the suite stopped answering meanwhile (a FHIR import's
    // 30 s deadline ran out in CI). Issues are recorded back on the test's task.
    @Test(arguments: FuzzTarget.allCases)
    func propertiesHoldOnTheSeedsAndOnMutationsOfThem(target: FuzzTarget) async throws {
        let scratch = scratch
        let (status, seeds, dictionary) = try await blocking { try Self.makeSeeds(for: target, in: scratch) }
        try #require(status == 0, "scripts/fuzz-seeds failed")
        #expect(!seeds.isEmpty, "no seeds for \(target.rawValue)")
        switch try await blocking({ Self.run(target, seeds: seeds, dictionary: dictionary) }) {
        case .held(let seeds, let mutated):
            print("fuzz \(target.rawValue): \(seeds) seeds and \(mutated) mutated inputs, properties held")
            #expect(mutated > 0)
        case .broken(let origin, let error, let input):
            let directory = Self.failures.appendingPathComponent(target.rawValue)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let file = directory.appendingPathComponent("\(UUID().uuidString.prefix(8))")
            try Data(input).write(to: file)
            Issue.record("""
                \(target.rawValue), \(origin): \(error)
                input saved in \(file.path); replay it with FUZZ_TARGET=\(target.rawValue) \
                .build-fuzz/release/caresync-fuzz \(file.path) (after scripts/fuzz builds it)
                """)
        }
    }

    /// Every seed as it is, then mutated inputs until ``inputs`` have run or 30 s have passed;
    /// stops at the first input that breaks a property (one is enough to reproduce).
    static func run(_ target: FuzzTarget, seeds: [(String, [UInt8])], dictionary: [[UInt8]]) -> Outcome {
        for (name, seed) in seeds {
            if let error = broken(target, seed) { return .broken(origin: "seed \(name)", error: error, input: seed) }
        }
        var mutator = Mutator(seeds: seeds.map(\.1), dictionary: dictionary, start: start)
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        var tried = 0
        while tried < inputs, clock.now < deadline {
            let input = mutator.next()
            if let error = broken(target, input) {
                return .broken(origin: "mutated input \(tried) of start \(start)", error: error, input: input)
            }
            tried += 1
        }
        return .held(seeds: seeds.count, mutated: tried)
    }

    /// What a property said of `input`, when it broke.
    static func broken(_ target: FuzzTarget, _ input: [UInt8]) -> String? {
        do {
            try target.check(input)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// The target's seeds (name and bytes, by name) and dictionary words, as scripts/fuzz-seeds writes them.
    static func makeSeeds(for target: FuzzTarget, in scratch: Scratch) throws -> (Int32, [(String, [UInt8])], [[UInt8]]) {
        let process = Process()
        process.executableURL = repository.appendingPathComponent("scripts/fuzz-seeds")
        process.arguments = [scratch.url.path]
        try process.runUnblocked()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return (process.terminationStatus, [], []) }
        let directory = scratch.url.appendingPathComponent(target.rawValue)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let seeds = try names.map { ($0, [UInt8](try Data(contentsOf: directory.appendingPathComponent($0)))) }
        let dictionary = (try? String(contentsOf: scratch.url.appendingPathComponent("\(target.rawValue).dict"), encoding: .utf8))
            .map { text in
                text.split(separator: "\n").compactMap { line in
                    (try? JSONDecoder().decode(String.self, from: Data(line.utf8))).map { Array($0.utf8) }
                }
            } ?? []
        return (process.terminationStatus, seeds, dictionary)
    }
}
