import Foundation
import NodeIdentity
import Testing

struct PairingCodeTests {
    @Test func codesReadBackWhateverTheCaseDashesAndLookAlikes() throws {
        let code = try #require(PairingCode("7k3m-q9xa"))
        #expect(code.characters == "7K3MQ9XA" && code.description == "7K3M-Q9XA")
        #expect(PairingCode("OIL0 0000")?.characters == "01100000")
        #expect(PairingCode("7K3M-Q9X") == nil)  // too short
        #expect(PairingCode("7K3M-Q9XU") == nil)  // U is not in Crockford's alphabet
    }

    @Test func randomCodesAreEightCharactersOfTheAlphabetAndDiffer() {
        let codes = (0..<200).map { _ in PairingCode.random() }
        #expect(codes.allSatisfy { PairingCode($0.description) == $0 && $0.characters.count == 8 })
        #expect(Set(codes).count == 200)
    }
}

struct PairingProofTests {
    static let companion = String(repeating: "11", count: 32)
    static let primary = String(repeating: "22", count: 32)

    /// The vector of Protocol/README.md, computed independently with Python's hashlib.scrypt and hmac.
    @Test func proofsMatchTheProtocolsVector() throws {
        let proof = try PairingProof(code: #require(PairingCode("7K3M-Q9XA")), companionFingerprint: Self.companion, primaryFingerprint: Self.primary)
        #expect(hex(proof.companion) == "4e0e9feaa3e87c064f31c087e1b2df9c70f5fbe0e4740ee145b83de32d389689")
        #expect(hex(proof.primary) == "5202a1066901b5485223d5ec75ab82a2838865be0188f5113537dac4d4c8fcde")
        #expect(proof.isCompanion(proof.companion) && proof.isPrimary(proof.primary))
        #expect(!proof.isCompanion(proof.primary))
    }

    /// A device in the middle has its own certificate on each side: the two sides' keys differ.
    @Test func aProofForOtherFingerprintsOrAnotherCodeDoesNotCheck() throws {
        let code = try #require(PairingCode("7K3M-Q9XA"))
        let middle = String(repeating: "33", count: 32)
        let companionSide = try PairingProof(code: code, companionFingerprint: Self.companion, primaryFingerprint: middle)
        let primarySide = try PairingProof(code: code, companionFingerprint: middle, primaryFingerprint: Self.primary)
        #expect(!primarySide.isCompanion(companionSide.companion))
        let otherCode = try PairingProof(
            code: #require(PairingCode("7K3M-Q9XB")), companionFingerprint: Self.companion, primaryFingerprint: Self.primary)
        let right = try PairingProof(code: code, companionFingerprint: Self.companion, primaryFingerprint: Self.primary)
        #expect(!right.isCompanion(otherCode.companion))
        #expect(throws: PairingProofError.badFingerprint) {
            try PairingProof(code: code, companionFingerprint: "abc", primaryFingerprint: Self.primary)
        }
    }

    /// `UInt8("+f", radix: 16)` is 15, so fingerprints with signs passed as hexadecimal and
    /// were bound into the key (scripts/fuzz, pairing, checks this).
    @Test func fingerprintsAreSixtyFourHexDigitsAndNothingElse() throws {
        let code = try #require(PairingCode("7K3M-Q9XA"))
        for bad in [String(repeating: "+f", count: 32), String(repeating: "-0", count: 32), String(repeating: "1", count: 63) + "g"] {
            #expect(throws: PairingProofError.badFingerprint) {
                try PairingProof(code: code, companionFingerprint: bad, primaryFingerprint: Self.primary)
            }
            #expect(throws: PairingProofError.badFingerprint) {
                try PairingProof(code: code, companionFingerprint: Self.companion, primaryFingerprint: bad)
            }
        }
        // Upper case is the same fingerprint.
        let upper = try PairingProof(code: code, companionFingerprint: "AB" + Self.companion.dropFirst(2), primaryFingerprint: Self.primary)
        let lower = try PairingProof(code: code, companionFingerprint: "ab" + Self.companion.dropFirst(2), primaryFingerprint: Self.primary)
        #expect(upper.companion == lower.companion)
    }

    func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }
}
