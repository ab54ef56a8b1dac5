import CareFHIR
import CarePlan
import Foundation

/// One row of `Docs/dosage-instructions.md`: a dosage instruction and what it must become.
struct DosageRow: Sendable, CustomStringConvertible {
    var number: Int
    /// `R4` or `DSTU2`.
    var version: String
    /// The dosage instruction's JSON.
    var dosage: String
    var en: String
    var de: String
    /// Times due on sample days (`--:--` for an as-needed slot).
    var due: [CalendarDay: [String]]
    var asNeeded: Bool
    var warnings: [ImportWarning.Kind]
    /// What the import holds for review (`held:REASON` in the warnings column).
    var holds: [ReviewHold.Reason]

    var description: String { "row \(number) (\(version)): \(en.isEmpty ? dosage : en)" }

    /// The row's dosage instructions: one, or several when the cell holds a JSON list.
    var dosages: [String] {
        guard dosage.hasPrefix("["), let list = try? JSONSerialization.jsonObject(with: Data(dosage.utf8)) as? [Any] else {
            return [dosage]
        }
        return list.map { String(decoding: try! JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]), as: UTF8.self) }
    }

    /// The row's dosages in an order of its version.
    var order: String {
        version == "DSTU2" ? medicationOrder(dosages: dosages) : request(dosages: dosages)
    }
}

/// The table of `Docs/dosage-instructions.md`, read the way a person reads it.
enum DosageTable {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Docs/dosage-instructions.md")

    static let rows: [DosageRow] = {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 7, let number = Int(cells[0]) else { return nil }
            let due = dueTimes(cells[5])
            let notes = cells[6].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return DosageRow(
                number: number, version: cells[1], dosage: String(cells[2].dropFirst().dropLast()),
                en: cells[3] == "—" ? "" : cells[3], de: cells[4] == "—" ? "" : cells[4], due: due,
                asNeeded: cells[5].contains("PRN"),
                warnings: notes.compactMap(ImportWarning.Kind.init(rawValue:)),
                holds: notes.filter { $0.hasPrefix("held:") }.compactMap { ReviewHold.Reason(rawValue: String($0.dropFirst(5))) })
        }
    }()

    /// `08-15: 08:00 18:30 · 08-16: – · 08-17: PRN×4`.
    static func dueTimes(_ text: String) -> [CalendarDay: [String]] {
        var due: [CalendarDay: [String]] = [:]
        for part in text.components(separatedBy: " · ") {
            let pieces = part.components(separatedBy: ": ")
            guard pieces.count == 2, let day = CalendarDay("2016-" + pieces[0]) else { continue }
            due[day] = pieces[1].split(separator: " ").flatMap { token -> [String] in
                if token == "–" { return [] }
                if token.hasPrefix("PRN×"), let n = Int(token.dropFirst(4)) { return Array(repeating: "--:--", count: n) }
                return [String(token)]
            }
        }
        return due
    }
}

/// A DSTU2 MedicationOrder with the given dosage instructions (JSON objects).
func medicationOrder(dosages: [String]) -> String {
    """
    {"resourceType": "MedicationOrder", "id": "mo1", "status": "active",
     "medicationCodeableConcept": {"text": "Aspirin 100 mg"}, "patient": {"reference": "Patient/p1"},
     "dateWritten": "2016-08-15", "dosageInstruction": [\(dosages.joined(separator: ", "))]}
    """
}
