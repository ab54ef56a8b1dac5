extension HealthRecordConnection {
    /// Whether the granted scopes let CareSync do `action` (SMART v2's letters: `c` create,
    /// `r` read, `u` update, `d` delete, `s` search) on the patient's resources of `type`:
    /// by a `patient/` or `user/` scope for the type or `*`, in v2's syntax
    /// (`patient/Observation.cr`, a query after `?` read as no narrowing) or v1's (`.read`
    /// for `r` and `s`, `.write` for `c`, `u` and `d`, `.*` for all).
    func allows(_ action: Character, on type: String) -> Bool {
        grantedScope.split(separator: " ").contains { scope in
            let parts = scope.split(separator: "?", maxSplits: 1)[0].split(separator: "/", maxSplits: 1)
            guard parts.count == 2, ["patient", "user"].contains(parts[0]) else { return false }
            let resource = parts[1].split(separator: ".", maxSplits: 1)
            guard resource.count == 2, resource[0] == type || resource[0] == "*" else { return false }
            switch resource[1] {
            case "*": return true
            case "read": return "rs".contains(action)
            case "write": return "cud".contains(action)
            default: return resource[1].contains(action)
            }
        }
    }

    /// The resources an upload creates that the server did not allow creating: none when
    /// measurements and doses may go to the health record.
    public var uploadsNotGranted: [String] {
        ["Observation", "Device", "MedicationAdministration"].filter { !allows("c", on: $0) }
    }
}
