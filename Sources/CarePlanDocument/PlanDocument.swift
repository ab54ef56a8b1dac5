import CarePlan
import Foundation

/// Reads care-plan documents (JSON, format `caresync-plan/1`, described in the README).
public enum PlanDocument {
    /// Decodes a plan from the file at `path`.
    ///
    /// - Parameter defaultStart: the start day of schedules that give none, usually the
    ///   day the plan takes effect.
    /// - Throws: ``PlanDocumentError`` naming the file, the JSON path and what is wrong.
    public static func load(path: String, defaultStart: CalendarDay) throws(PlanDocumentError) -> Plan {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw PlanDocumentError(file: path, path: "$", message: "cannot read the file (\(Self.reason(error)))")
        }
        return try decode(data, file: path, defaultStart: defaultStart)
    }

    /// Decodes a plan from JSON `data`; `file` names it in errors.
    public static func decode(_ data: Data, file: String, defaultStart: CalendarDay) throws(PlanDocumentError) -> Plan {
        let decoder = JSONDecoder()
        // A plan-level "start" is the default of its schedules; read it first.
        let planStart = (try? decoder.decode(PlanStart.self, from: data))?.start
        decoder.userInfo[.defaultScheduleStart] = planStart ?? defaultStart
        do {
            return try decoder.decode(Plan.self, from: data)
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            throw PlanDocumentError(file: file, path: "$", message: "not valid JSON" + syntaxErrorLocation(data))
        } catch let error as DecodingError {
            throw PlanDocumentError(file: file, decodingError: error)
        } catch {
            throw PlanDocumentError(file: file, path: "$", message: Self.reason(error))
        }
    }

    /// Encodes a plan as a document, keys sorted and pretty-printed.
    public static func encode(_ plan: Plan) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(plan)
    }

    private struct PlanStart: Decodable {
        var start: CalendarDay?
    }

    /// Where JSONSerialization finds the syntax error, as `: <what> at line L, column C`.
    private static func syntaxErrorLocation(_ data: Data) -> String {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return ""
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? ""
            guard let range = detail.range(of: #"character (\d+)"#, options: .regularExpression),
                  let offset = Int(detail[range].dropFirst("character ".count)) else {
                return detail.isEmpty ? "" : ": " + detail
            }
            let before = data.prefix(offset)
            let line = before.filter { $0 == UInt8(ascii: "\n") }.count + 1
            let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
            let what = detail[..<range.lowerBound].replacingOccurrences(of: " around ", with: "").lowercased()
            return ": \(what) at line \(line), column \(column)"
        }
    }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedDescription
    }
}
