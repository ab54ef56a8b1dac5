import Foundation
import NodeIdentity

// Pairing codes and proofs (Sources/NodeIdentity) on any text and bytes:
// - PairingCode accepts exactly the codes it documents: eight characters of Crockford's
//   base32 once case, dashes and spaces are forgiven and O, I, L read as 0, 1, 1 (checked
//   against a model for ASCII text; for any text, an accepted code is eight characters of
//   the alphabet that read back from its `ABCD-EFGH` form);
// - a fingerprint that is not 64 hexadecimal digits is refused with badFingerprint, before
//   any key is derived;
// - a proof checks only if it is byte for byte the right side's proof (the key of the
//   vector in Protocol/vectors/frames.json, derived once).
//
// Input: three parts of one length byte each (the code, the companion's fingerprint, the
// primary's fingerprint), then the proof's bytes.

func checkPairing(_ bytes: [UInt8]) throws(PropertyBroken) {
    var input = FuzzInput(bytes)
    let text = input.text()
    let companion = input.text()
    let primary = input.text()
    let proof = Data(input.rest())

    let code = PairingCode(text)
    try checkCode(code, from: text)
    try checkFingerprints(code: code ?? vector.code, companion, primary)
    try require(vector.proof.isCompanion(proof) == (proof == vector.proof.companion), "companion proof \(proof.hex)")
    try require(vector.proof.isPrimary(proof) == (proof == vector.proof.primary), "primary proof \(proof.hex)")
}

/// The pairing vector: code 7K3M-Q9XA, fingerprints of 32 bytes of 0x11 and of 0x22.
private let vector: (code: PairingCode, proof: PairingProof) = {
    let code = PairingCode("7K3M-Q9XA")!
    let proof = try! PairingProof(
        code: code, companionFingerprint: String(repeating: "11", count: 32), primaryFingerprint: String(repeating: "22", count: 32))
    precondition(proof.companion.hex == "4e0e9feaa3e87c064f31c087e1b2df9c70f5fbe0e4740ee145b83de32d389689")
    precondition(proof.primary.hex == "5202a1066901b5485223d5ec75ab82a2838865be0188f5113537dac4d4c8fcde")
    return (code, proof)
}()

private let alphabet = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

private func checkCode(_ code: PairingCode?, from text: String) throws(PropertyBroken) {
    if let code {
        try require(code.characters.count == 8 && code.characters.allSatisfy(alphabet.contains), "accepted \(text.debugDescription) as \(code)")
        try require(PairingCode(code.description) == code && PairingCode(code.characters) == code, "\(code) does not read back")
    }
    guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return }
    var normalized = ""
    for byte in text.utf8 where byte != UInt8(ascii: "-") && byte != UInt8(ascii: " ") {
        var character = Character(Unicode.Scalar(byte))
        character = Character(character.uppercased())
        if character == "O" { character = "0" }
        if character == "I" || character == "L" { character = "1" }
        guard alphabet.contains(character) else { return try require(code == nil, "accepted \(text.debugDescription)") }
        normalized.append(character)
    }
    try require(code?.characters == (normalized.count == 8 ? normalized : nil),
            "read \(text.debugDescription) as \(String(describing: code)), expected \(normalized)")
}

/// Fingerprints that are not both 64 hexadecimal digits are refused. Right ones are not
/// tried: each derivation costs a scrypt (about 100 ms).
private func checkFingerprints(code: PairingCode, _ companion: String, _ primary: String) throws(PropertyBroken) {
    func isFingerprint(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (65...70).contains($0) || (97...102).contains($0) }
    }
    guard !isFingerprint(companion) || !isFingerprint(primary) else { return }
    do {
        _ = try PairingProof(code: code, companionFingerprint: companion, primaryFingerprint: primary)
    } catch {
        return try require(error == .badFingerprint, "refused with \(error)")
    }
    throw fuzzFailure("derived a key for fingerprints \(companion.debugDescription) and \(primary.debugDescription)")
}

extension Data {
    fileprivate var hex: String { map { String(format: "%02x", $0) }.joined() }
}
