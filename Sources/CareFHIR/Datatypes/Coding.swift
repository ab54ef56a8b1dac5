/// A code from a code system (FHIR `Coding`).
public struct Coding: Sendable, Hashable, Codable {
    public var system: String?
    public var version: String?
    public var code: String?
    public var display: String?

    public init(system: String? = nil, version: String? = nil, code: String? = nil, display: String? = nil) {
        self.system = system
        self.version = version
        self.code = code
        self.display = display
    }
}

/// A concept given by codes and/or text (FHIR `CodeableConcept`).
public struct CodeableConcept: Sendable, Hashable, Codable {
    public var coding: [Coding]?
    public var text: String?

    public init(coding: [Coding]? = nil, text: String? = nil) {
        self.coding = coding
        self.text = text
    }

    /// What a person reads: the first coding's display, then the text.
    public var displayName: String? {
        coding?.lazy.compactMap(\.display).first { !$0.isEmpty } ?? text.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The first code, for matching codes such as `BID` or `MORN`.
    public var firstCode: String? { coding?.lazy.compactMap(\.code).first }
}

/// A reference to another resource (FHIR `Reference`): relative (`Patient/1`), absolute,
/// or to a contained resource (`#med1`).
public struct Reference: Sendable, Hashable, Codable {
    public var reference: String?
    public var type: String?
    public var identifier: Identifier?
    public var display: String?

    public init(reference: String? = nil, type: String? = nil, identifier: Identifier? = nil, display: String? = nil) {
        self.reference = reference
        self.type = type
        self.identifier = identifier
        self.display = display
    }
}

/// A business identifier (FHIR `Identifier`): a value unique within its system.
public struct Identifier: Sendable, Hashable, Codable {
    public var use: String?
    public var system: String?
    public var value: String?

    public init(use: String? = nil, system: String? = nil, value: String? = nil) {
        self.use = use
        self.system = system
        self.value = value
    }
}
