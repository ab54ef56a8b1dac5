import Foundation
import RelayProtocol
import Testing

@Suite struct RelayDeviceIDTests {
    /// A certificate's SHA-256 and the id `strelaysrv` 1.19.2 printed for it in its URI, for a
    /// key it generated here (the live check is `RelayServerTests` in EndToEndTests).
    static let digest = "9EA0C99494307E209C6D8B337BEE0B3C5B01B5634868299DC8CA3CD71825A5F2"
    static let printed = "T2QMTFE-UGB7CB2-HDNRMZX-X3QLHRY-NQDNLDJ-BUCTHOS-IZI6NOG-BFUXZAX"

    static var digestBytes: [UInt8] {
        stride(from: 0, to: digest.count, by: 2).map { UInt8(digest.dropFirst($0).prefix(2), radix: 16)! }
    }

    @Test func aDigestIsWrittenAsSyncthingWritesIt() throws {
        #expect(try RelayDeviceID(bytes: Self.digestBytes).description == Self.printed)
    }

    @Test func theWrittenIdReadsBackToItsDigest() throws {
        #expect(try RelayDeviceID(Self.printed).bytes == Self.digestBytes)
    }

    @Test func caseDashesSpacesAndLookAlikesAreReadAsSyncthingReadsThem() throws {
        let expected = try RelayDeviceID(Self.printed)
        #expect(try RelayDeviceID(Self.printed.lowercased()) == expected)
        #expect(try RelayDeviceID(Self.printed.replacingOccurrences(of: "-", with: "")) == expected)
        #expect(try RelayDeviceID(Self.printed.replacingOccurrences(of: "-", with: " ")) == expected)
        // "0", "1" and "8" are not base32: read as the O, I and B people meant.
        #expect(try RelayDeviceID(Self.printed.replacingOccurrences(of: "B", with: "8")) == expected)
        #expect(try RelayDeviceID(Self.printed.replacingOccurrences(of: "I", with: "1")) == expected)
        #expect(try RelayDeviceID(Self.printed.replacingOccurrences(of: "O", with: "0")) == expected)
    }

    @Test func aMistypedCharacterIsCaughtByItsGroupsCheck() {
        // The third character of the id's second group of thirteen (its 17th character, after two dashes).
        var characters = Array(Self.printed)
        let index = 16 + 2
        characters[index] = characters[index] == "A" ? "C" : "A"
        #expect(throws: RelayDeviceIDError.checkFailed(group: 2)) { try RelayDeviceID(String(characters)) }
    }

    @Test func whatIsNotAnIdSaysWhy() {
        #expect(throws: RelayDeviceIDError.wrongLength(55)) { try RelayDeviceID(String(Self.printed.dropLast())) }
        #expect(throws: RelayDeviceIDError.notBase32("T2QMTFE-UGB7CB2-HDNRMZX-X3QLHRY-NQDNLDJ-BUCTHOS-IZI6NOG-BFUXZA9")) {
            try RelayDeviceID("T2QMTFE-UGB7CB2-HDNRMZX-X3QLHRY-NQDNLDJ-BUCTHOS-IZI6NOG-BFUXZA9")
        }
        #expect(throws: RelayDeviceIDError.wrongLength(31)) { try RelayDeviceID(bytes: Array(repeating: 0, count: 31)) }
    }

    @Test func everyDigestSurvivesTheWrittenForm() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let id = try RelayDeviceID(bytes: bytes)
            #expect(try RelayDeviceID(id.description) == id)
        }
    }

    @Test func aCertificatesIdIsTheSHA256OfItsDER() {
        // SHA-256 of the three bytes "abc" (FIPS 180-2's example).
        let id = RelayDeviceID(certificateDER: Array("abc".utf8))
        #expect(id.bytes.map { String(format: "%02x", $0) }.joined() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
