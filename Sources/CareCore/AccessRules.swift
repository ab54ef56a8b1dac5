import CarePlan
@_spi(CareCore) import CarePlanStore
import Foundation

/// The rules of who may reach the record, read from it inside the transaction that keeps
/// their effect:
///
/// 1. **A revoked identity** never pairs again.
/// 2. **Wrong codes lock**: an attempt that matches no code counts against every open code
///    of its family (pairing codes, sign-in codes: never each other's), and at the family's
///    limit those codes lock and their characters are forgotten. With no code open, the
///    answer is "locked" if the newest code was locked, else "no open code".
/// 3. **A code is used once**, before it expires: a used, locked or expired code says so.
/// 4. **A code pairs the role it was made for**.
/// 5. **Grants come from the code**: a household device records if its code said so (a
///    watch or widget always records), and only a household code keeps a standby copy.
/// 6. **Revocation is final and said once**: revoking an unknown device is an error, a
///    revoked one is left as it is; a browser session is named by at least 6 hex digits
///    of its id, naming one.
/// 7. **Last seen never goes back**: a device's time is kept only when later; a browser
///    session's is written at most once a minute, so that pages do not each cost a commit.
enum AccessRules {
    /// Rule 2: a wrong attempt at a code of `family`, which locks at `limit`.
    static func wrongAttempt(_ record: RecordTransaction, at family: CodeFamily, limit: Int) throws -> PairingRefusal {
        guard let most = try record.access.mostWrongAttempts(amongOpen: family) else {
            return try record.access.newestCodeIsLocked(of: family) ? .locked : .noOpenCode
        }
        try record.access.countWrongAttempt(amongOpen: family)
        let failures = most + 1
        guard failures >= limit else { return .wrongCode(attemptsLeft: limit - failures) }
        try record.access.lockOpenCodes(of: family)
        return .locked
    }

    /// Rule 3: why `code` can no longer be used, if it cannot.
    static func spent(_ code: IssuedCode, now: Date) -> PairingRefusal? {
        if code.isUsed { return .used }
        if code.isLocked { return .locked }
        if now >= code.expiresAt { return .expired }
        return nil
    }

    /// Rules 1 to 5 for a device whose proof matched the code `codeID` (or none).
    static func pair(
        _ record: RecordTransaction, codeID: Int?, deviceID: String, name: String, role: DeviceRole
    ) throws -> Result<PairedDevice, PairingRefusal> {
        if try record.access.device(deviceID)?.isRevoked == true { return .failure(.revoked) }
        guard let codeID, let code = try record.access.code(codeID), let codeRole = DeviceRole(rawValue: code.role) else {
            return .failure(try wrongAttempt(record, at: .pairing, limit: DeviceAccess.pairingAttempts))
        }
        if let refusal = spent(code, now: record.now) { return .failure(refusal) }
        guard codeRole == role else { return .failure(.wrongRole(codeRole: codeRole, deviceRole: role)) }
        try record.access.useCode(codeID, by: deviceID)
        return .success(try record.access.keepPaired(deviceID, name: name, role: role, mayRecord: code.mayRecord, standby: code.standby))
    }

    /// Rules 2 and 3 for a browser signing in with `code`.
    static func signIn(
        _ record: RecordTransaction, code: String, sessionID: String, name: String, lifetime: TimeInterval
    ) throws -> Result<WebSession, PairingRefusal> {
        guard let issued = try record.access.newestCode(code, of: .signIn), let access = WebAccess(rawValue: issued.role) else {
            return .failure(try wrongAttempt(record, at: .signIn, limit: DeviceAccess.signInAttempts))
        }
        if let refusal = spent(issued, now: record.now) { return .failure(refusal) }
        try record.access.useCode(issued.id, by: sessionID)
        return .success(try record.sessions.keep(sessionID, access: access, name: name, expiresAt: record.now.addingTimeInterval(lifetime)))
    }

    /// Rule 6 for the browser session whose id starts with `prefix`.
    static func revokeWebSession(_ record: RecordTransaction, _ prefix: String) throws -> WebSession? {
        let prefix = prefix.lowercased()
        guard prefix.count >= 6, prefix.allSatisfy(\.isHexDigit) else { throw CarePlanStoreError.unknownWebSession(prefix) }
        let sessions = try record.sessions.sessions(startingWith: prefix)
        guard let session = sessions.first else { throw CarePlanStoreError.unknownWebSession(prefix) }
        guard sessions.count == 1 else { throw CarePlanStoreError.ambiguousDevice(prefix, matches: sessions.map(\.shortID)) }
        guard session.revokedAt == nil else { return nil }
        try record.sessions.keepEnded(session.id)
        return session
    }

    /// Rule 7: how stale a browser session's last-seen time may be before it is written again.
    static let sessionSeenInterval: TimeInterval = 60
}
