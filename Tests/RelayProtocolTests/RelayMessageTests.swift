import RelayProtocol
import Testing

/// The messages against bytes written out by hand from the specification (syncthing/docs
/// `specs/relay-v1.rst`): the header (magic 9E79BC40, type, length), then XDR.
@Suite struct RelayMessageTests {
    static let id = try! RelayDeviceID(bytes: Array(1...32))
    static let key = Array(UInt8(101)...UInt8(132))

    static func header(type: UInt8, length: UInt8) -> [UInt8] { [0x9E, 0x79, 0xBC, 0x40, 0, 0, 0, type, 0, 0, 0, length] }

    @Test func messagesWithoutContentAreTheirHeaderAlone() {
        #expect(RelayMessage.ping.encoded == Self.header(type: 0, length: 0))
        #expect(RelayMessage.pong.encoded == Self.header(type: 1, length: 0))
        #expect(RelayMessage.joinRelayRequest.encoded == Self.header(type: 2, length: 0))
        #expect(RelayMessage.relayFull.encoded == Self.header(type: 7, length: 0))
    }

    @Test func aResponsesTextIsPaddedToFourBytes() {
        // "success" is 7 bytes: its length, the bytes, one zero.
        let expected = Self.header(type: 4, length: 16) + [0, 0, 0, 0, 0, 0, 0, 7] + Array("success".utf8) + [0]
        #expect(RelayMessage.response(.success).encoded == expected)
    }

    @Test func requestsCarryTheirKeyOrId() {
        #expect(RelayMessage.joinSessionRequest(key: Self.key).encoded == Self.header(type: 3, length: 36) + [0, 0, 0, 32] + Self.key)
        #expect(RelayMessage.connectRequest(id: Self.id).encoded == Self.header(type: 5, length: 36) + [0, 0, 0, 32] + Array(1...32))
    }

    @Test func anInvitationCarriesWhoWhereAndWhichSide() {
        let invitation = SessionInvitation(from: Self.id, key: Self.key, address: [127, 0, 0, 1], port: 22067, serverSocket: true)
        let expected = Self.header(type: 6, length: 88) + [0, 0, 0, 32] + Array(1...32) + [0, 0, 0, 32] + Self.key
            + [0, 0, 0, 4, 127, 0, 0, 1] + [0, 0, 0x56, 0x33] + [0, 0, 0, 1]
        #expect(RelayMessage.sessionInvitation(invitation).encoded == expected)
    }

    @Test(arguments: [
        RelayMessage.ping, .pong, .joinRelayRequest, .relayFull, .joinSessionRequest(key: RelayMessageTests.key), .connectRequest(id: RelayMessageTests.id),
        .response(.notFound), .response(RelayResponse(code: 99, message: "internal error")),
        .sessionInvitation(SessionInvitation(from: RelayMessageTests.id, key: RelayMessageTests.key, address: [], port: 1, serverSocket: false)),
    ])
    func everyMessageDecodesAsItWasEncoded(_ message: RelayMessage) throws {
        let bytes = message.encoded + [0xAA]  // the start of the next message is left alone
        let decoded = try #require(try RelayMessage.decode(bytes))
        #expect(decoded.message == message)
        #expect(decoded.length == bytes.count - 1)
        // Every prefix is a message not yet whole.
        for count in 0..<bytes.count - 1 { #expect(try RelayMessage.decode(bytes.prefix(count)) == nil) }
    }

    @Test func bytesNoRelaySendsAreRefusedWithTheirReason() {
        #expect(throws: RelayProtocolError.badMagic(0x1603_0100)) { try RelayMessage.decode([0x16, 0x03, 0x01, 0x00] + [UInt8](repeating: 0, count: 8)) }
        #expect(throws: RelayProtocolError.unknownType(8)) { try RelayMessage.decode(Self.header(type: 8, length: 0)) }
        #expect(throws: RelayProtocolError.tooLong(0x7FFF_FFFF)) {
            try RelayMessage.decode([0x9E, 0x79, 0xBC, 0x40, 0, 0, 0, 4, 0x7F, 0xFF, 0xFF, 0xFF])
        }
        // A key of 33 bytes, beyond opaque<32>.
        #expect(throws: RelayProtocolError.self) {
            try RelayMessage.decode(Self.header(type: 3, length: 40) + [0, 0, 0, 33] + [UInt8](repeating: 1, count: 36))
        }
        // A ping that carries something.
        #expect(throws: RelayProtocolError.malformed("4 bytes after a message of type 0")) {
            try RelayMessage.decode(Self.header(type: 0, length: 4) + [0, 0, 0, 0])
        }
        // A response whose text runs past its message.
        #expect(throws: RelayProtocolError.malformed("it ends inside 9 bytes of data")) {
            try RelayMessage.decode(Self.header(type: 4, length: 12) + [0, 0, 0, 0, 0, 0, 0, 9, 65, 65, 65, 65])
        }
        // Padding that is not zeros.
        #expect(throws: RelayProtocolError.malformed("padding that is not zeros")) {
            try RelayMessage.decode(Self.header(type: 4, length: 16) + [0, 0, 0, 0, 0, 0, 0, 7] + Array("success".utf8) + [1])
        }
        // An id that is not 32 bytes.
        #expect(throws: RelayProtocolError.malformed("a device id of 4 bytes, not 32")) {
            try RelayMessage.decode(Self.header(type: 5, length: 8) + [0, 0, 0, 4, 1, 2, 3, 4])
        }
    }
}
