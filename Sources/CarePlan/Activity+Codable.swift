/// The JSON form used in care-plan documents and in the store, documented in CarePlanDocument.docc/PlanDocuments.md.
extension Activity: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, group, kind, title, text, instructions, tint, image, tags, resultResettable
        case result, userInfo, medication, measurement, missedDose, schedule
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.fields(CodingKeys.self)
        do {
            try self.init(
                identifier: try c.decode(String.self, forKey: .id),
                groupIdentifier: try c.decodeIfPresent(String.self, forKey: .group),
                kind: try c.decode(ActivityKind.self, forKey: .kind),
                title: try c.decode(String.self, forKey: .title),
                text: try c.decodeIfPresent(String.self, forKey: .text),
                instructions: try c.decodeIfPresent(String.self, forKey: .instructions),
                tintColor: try c.decodeIfPresent(String.self, forKey: .tint),
                imageURL: try c.decodeIfPresent(String.self, forKey: .image),
                tags: try c.decodeIfPresent([String].self, forKey: .tags) ?? [],
                resultResettable: try c.decodeIfPresent(Bool.self, forKey: .resultResettable) ?? false,
                result: try c.decodeIfPresent(ResultKind.self, forKey: .result),
                userInfo: try c.decodeIfPresent([String: String].self, forKey: .userInfo) ?? [:],
                medication: try c.decodeIfPresent(MedicationLink.self, forKey: .medication),
                measurement: try c.decodeIfPresent(MeasurementType.self, forKey: .measurement),
                missedDose: try c.decodeIfPresent(MissedDoseRule.self, forKey: .missedDose) ?? .standard,
                schedule: try c.decode(Schedule.self, forKey: .schedule))
        } catch let error as ActivityError {
            let key: CodingKeys = switch error {
            case .invalidIdentifier: .id
            case .emptyTitle: .title
            case .invalidTintColor: .tint
            case .resultOnIntervention, .invalidResult: .result
            case .measurementDoesNotFit: .measurement
            }
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(identifier, forKey: .id)
        try c.encodeIfPresent(groupIdentifier, forKey: .group)
        try c.encode(kind, forKey: .kind)
        try c.encode(title, forKey: .title)
        try c.encodeIfPresent(text, forKey: .text)
        try c.encodeIfPresent(instructions, forKey: .instructions)
        try c.encodeIfPresent(tintColor, forKey: .tint)
        try c.encodeIfPresent(imageURL, forKey: .image)
        if !tags.isEmpty { try c.encode(tags, forKey: .tags) }
        if resultResettable { try c.encode(true, forKey: .resultResettable) }
        try c.encodeIfPresent(result, forKey: .result)
        if !userInfo.isEmpty { try c.encode(userInfo, forKey: .userInfo) }
        try c.encodeIfPresent(medication, forKey: .medication)
        try c.encodeIfPresent(measurement, forKey: .measurement)
        if missedDose != .standard { try c.encode(missedDose, forKey: .missedDose) }
        try c.encode(schedule, forKey: .schedule)
    }
}
