import CarePlan
import Foundation
import StrictJSON

/// Reads care-plan documents (JSON, format `caresync-plan/1`, described in the catalog article PlanDocuments.md).
public enum PlanDocument {
    /// Decodes a plan from the file at `path`.
    ///
    /// - Parameters:
    ///   - path: the document's file.
    ///   - defaultStart: the start day of schedules that give none, usually the day the plan
    ///     takes effect.
    /// - Throws: ``PlanDocumentError`` naming the file, the JSON path and what is wrong.
    public static func load(path: String, defaultStart: CalendarDay) throws(PlanDocumentError) -> Plan {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw PlanDocumentError(file: path, path: "$", message: "cannot read the file: it is a directory")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw PlanDocumentError(file: path, path: "$", message: "cannot read the file (\(Self.reason(error)))")
        }
        return try decode(data, file: path, defaultStart: defaultStart)
    }

    /// Decodes a plan from JSON `data`; `file` names it in errors. Only standard JSON is read,
    /// an unknown field is an error, and so is a number out of its range (`CodingUserInfoKey.strictDocument`).
    public static func decode(_ data: Data, file: String, defaultStart: CalendarDay) throws(PlanDocumentError) -> Plan {
        do {
            try JSONSyntax.check(data)
        } catch {
            throw PlanDocumentError(file: file, syntaxError: error)
        }
        let decoder = JSONDecoder()
        // A plan-level "start" is the default of its schedules; read it first.
        let planStart = (try? decoder.decode(PlanStart.self, from: data))?.start
        decoder.userInfo[.defaultScheduleStart] = planStart ?? defaultStart
        decoder.userInfo[.strictDocument] = true
        do {
            return try decoder.decode(Plan.self, from: data)
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

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedDescription
    }
}
