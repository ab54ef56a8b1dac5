import TestSupport

/// Inputs made from seeds by the moves a fuzzer makes without coverage to guide it: bits
/// flipped, bytes set, inserted, deleted and repeated, dictionary words put in, and one
/// seed spliced into another. A fixed start makes the same inputs on every run.
struct Mutator {
    private var random: SplitMix64
    private let seeds: [[UInt8]]
    private let dictionary: [[UInt8]]

    init(seeds: [[UInt8]], dictionary: [[UInt8]], start: UInt64) {
        precondition(!seeds.isEmpty, "a mutator needs a seed")
        self.seeds = seeds
        self.dictionary = dictionary
        random = SplitMix64(seed: start)
    }

    /// A seed with one to four mutations.
    mutating func next() -> [UInt8] {
        var input = seeds[below(seeds.count)]
        for _ in 0...below(4) { mutate(&input) }
        return input
    }

    /// Bytes that parsers treat specially: limits of integer widths and JSON's punctuation.
    private static let interesting: [UInt8] = [0, 1, 0x7f, 0x80, 0xff, 0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x2d, 0x30, 0x39, 0x65]

    /// A number in 0..<bound.
    private mutating func below(_ bound: Int) -> Int {
        Int.random(in: 0..<bound, using: &random)
    }

    private mutating func mutate(_ input: inout [UInt8]) {
        let at = below(input.count + 1)
        switch below(10) {
        case 0 where at < input.count: input[at] ^= 1 << UInt8(below(8))
        case 1 where at < input.count: input[at] = UInt8.random(in: 0...255, using: &random)
        case 2 where at < input.count: input[at] = Self.interesting[below(Self.interesting.count)]
        case 3: input.insert(contentsOf: (0...below(8)).map { _ in UInt8.random(in: 0...255, using: &random) }, at: at)
        case 4 where at < input.count: input.removeSubrange(at..<min(input.count, at + 1 + below(16)))
        case 5 where at < input.count:
            let piece = input[at..<min(input.count, at + 1 + below(32))]
            input.insert(contentsOf: piece, at: below(input.count + 1))
        case 6 where !dictionary.isEmpty: input.insert(contentsOf: dictionary[below(dictionary.count)], at: at)
        case 7 where !dictionary.isEmpty:
            let word = dictionary[below(dictionary.count)]
            input.replaceSubrange(at..<min(input.count, at + word.count), with: word)
        case 8:
            let other = seeds[below(seeds.count)]
            input = Array(input[..<at]) + other[below(other.count + 1)...]
        default: input.removeSubrange(at...)
        }
    }
}
