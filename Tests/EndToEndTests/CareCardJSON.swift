/// The documented `--json` shapes, decoded as a client in another program would.
struct CareCard: Decodable {
    struct Plan: Decodable {
        var id: String
        var title: String?
        var timeZone: String
    }

    var plan: Plan
    var day: String
    var revision: Int
    var adherence: Tally
    var interventions: Tally
    var assessments: Tally
    var events: [Event]
}

struct Tally: Decodable, Equatable {
    var completed: Int
    var total: Int
    var percent: Int?
}

struct Event: Decodable {
    struct Value: Decodable, Equatable {
        var integer: Int?
        var decimal: Double?
        var text: String?
        var unit: String?
        var kind: String?
    }

    var activity: String
    var title: String
    var kind: String
    var day: String
    var occurrence: Int
    var time: String?
    var state: String
    var values: [Value]
    var device: String?
    var reason: String?
    var version: Int
}

struct EventList: Decodable {
    var activity: String
    var from: String
    var to: String
    var events: [Event]
}

struct Change: Decodable {
    struct Key: Decodable, Equatable {
        var activity: String
        var day: String
        var occurrence: Int
    }

    struct Outcome: Decodable {
        var state: String
        var recordedAt: String
        var reason: String?
    }

    var revision: Int
    var kind: String
    var activity: String?
    var event: Key?
    var outcome: Outcome?
    var messageID: String?
    var device: String
}

struct LoadReport: Decodable {
    var added: [String]
    var updated: [String]
    var ended: [String]
    var unchanged: [String]
    var revision: Int
}

/// `fhir export --json`.
struct ExportSummary: Decodable {
    var administrations: Int
    var after: Int
    var through: Int
    var created: Int?
    var existing: Int?
    var withdrawn: Int?
    var cursor: Int?
}
