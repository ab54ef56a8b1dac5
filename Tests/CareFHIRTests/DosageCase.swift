import CareFHIR
import CarePlan
import Testing

/// One dosage instruction with what it must become: its English and German sentences and
/// the events of sample days (times, `--:--` for an occurrence without a time).
struct DosageCase: Sendable, CustomTestStringConvertible {
    var name: String
    var dosage: String
    var en: String
    var de: String
    var events: [String: [String]]
    var warnings: [ImportWarning.Kind] = []
    var asNeeded = false

    var testDescription: String { name }
}

func timed(_ times: String...) -> [String] { times }
func untimed(_ count: Int) -> [String] { Array(repeating: "--:--", count: count) }
