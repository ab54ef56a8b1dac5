import Foundation

/// A CLDR plural rule such as `i = 1 and v = 0` or `n % 10 = 2..4 and n % 100 != 12..14`:
/// the operands n, i, v, f, t, `%`, `=`/`!=` against values and ranges, `and`, `or`.
/// Languages name their rules in their data file; sample lists after `@` are ignored.
struct PluralRule: Sendable {
    private typealias Relation = (operand: Character, modulo: Decimal?, negated: Bool, ranges: [ClosedRange<Decimal>])
    /// Alternatives (`or`) of conjunctions (`and`).
    private let alternatives: [[Relation]]

    init?(_ text: String) {
        let condition = text.split(separator: "@", maxSplits: 1).first.map(String.init) ?? ""
        var alternatives: [[Relation]] = []
        for alternative in condition.components(separatedBy: " or ") {
            var relations: [Relation] = []
            for relation in alternative.components(separatedBy: " and ") {
                guard let parsed = Self.relation(relation) else { return nil }
                relations.append(parsed)
            }
            alternatives.append(relations)
        }
        self.alternatives = alternatives
    }

    private static func relation(_ text: String) -> Relation? {
        let negated = text.contains("!=")
        let sides = text.components(separatedBy: negated ? "!=" : "=")
        guard sides.count == 2 else { return nil }
        let left = sides[0].split(separator: "%").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let operand = left.first?.first, left[0].count == 1, "nivft".contains(operand) else { return nil }
        let modulo = left.count == 2 ? Decimal(string: left[1]) : nil
        if left.count == 2, modulo == nil { return nil }
        var ranges: [ClosedRange<Decimal>] = []
        for item in sides[1].split(separator: ",") {
            let bounds = item.components(separatedBy: "..").map { Decimal(string: $0.trimmingCharacters(in: .whitespaces)) }
            guard let low = bounds.first ?? nil, let high = bounds.last ?? nil, bounds.count <= 2, low <= high else { return nil }
            ranges.append(low...high)
        }
        return (operand, modulo, negated, ranges)
    }

    /// Whether the number, written as `text` (`1`, `1.50`), falls under this rule.
    func matches(_ text: String) -> Bool {
        let operands = Self.operands(text)
        return alternatives.contains { relations in
            relations.allSatisfy { relation in
                var value = operands[relation.operand] ?? 0
                if let modulo = relation.modulo { value = Self.remainder(value, modulo) }
                // A range holds whole numbers only: n = 1.5 is not in 1..2.
                let inside = relation.ranges.contains { $0.contains(value) && (value.isWholeNumber || $0.lowerBound == $0.upperBound) }
                return inside != relation.negated
            }
        }
    }

    /// n (absolute value), i (integer digits), v (visible fraction digits), f and t
    /// (fraction digits with and without trailing zeros).
    static func operands(_ text: String) -> [Character: Decimal] {
        let parts = text.trimmingCharacters(in: CharacterSet(charactersIn: "-")).split(separator: ".", maxSplits: 1).map(String.init)
        let integer = Decimal(string: parts.first ?? "0") ?? 0
        let fraction = parts.count > 1 ? parts[1] : ""
        let trimmed = String(fraction.reversed().drop { $0 == "0" }.reversed())
        return [
            "n": Decimal(string: parts.joined(separator: ".")) ?? 0, "i": integer, "v": Decimal(fraction.count),
            "f": Decimal(string: fraction) ?? 0, "t": Decimal(string: trimmed) ?? 0,
        ]
    }

    private static func remainder(_ value: Decimal, _ modulo: Decimal) -> Decimal {
        let quotient = NSDecimalNumber(decimal: value / modulo).intValue
        return value - Decimal(quotient) * modulo
    }
}

private extension Decimal {
    var isWholeNumber: Bool { self == Decimal(NSDecimalNumber(decimal: self).intValue) }
}
