/// The R4 resources a measurement export writes, with only the elements CareSync fills.
public enum R4 {
    /// An `Observation` following the vital-signs profile (or, for steps, the activity
    /// category): one sample, with its patient and the device that took it.
    public struct Observation: Sendable, Hashable, Codable {
        public var resourceType = "Observation"
        public var meta: Meta?
        public var identifier: [Identifier]
        public var status = "final"
        public var category: [CodeableConcept]
        public var code: CodeableConcept
        public var subject: Reference
        public var effectiveDateTime: String?
        /// Instead of `effectiveDateTime` for a count over an interval.
        public var effectivePeriod: Period?
        public var valueQuantity: Quantity?
        /// A blood pressure's systolic and diastolic.
        public var component: [Component]?
        public var device: Reference

        public struct Component: Sendable, Hashable, Codable {
            public var code: CodeableConcept
            public var valueQuantity: Quantity
        }
    }

    /// A `Device`: a measurement source (a watch's sensor, a cuff).
    public struct Device: Sendable, Hashable, Codable {
        public var resourceType = "Device"
        public var identifier: [Identifier]
        public var status = "active"
        public var manufacturer: String?
        public var deviceName: [DeviceName]
        public var modelNumber: String?
        public var type: CodeableConcept?
        public var version: [Version]?

        public struct DeviceName: Sendable, Hashable, Codable {
            public var name: String
            /// `user-friendly-name` or `model-name`.
            public var type: String
        }

        public struct Version: Sendable, Hashable, Codable {
            public var value: String
        }
    }

    /// A `Patient`: whom the plan is for.
    public struct Patient: Sendable, Hashable, Codable {
        public var resourceType = "Patient"
        public var identifier: [Identifier]
        public var name: [HumanName]
        public var birthDate: String?

        public struct HumanName: Sendable, Hashable, Codable {
            public var text: String
        }
    }

    /// Profiles a resource claims to follow.
    public struct Meta: Sendable, Hashable, Codable {
        public var profile: [String]
    }
}
