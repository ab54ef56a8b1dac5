/// The messages of Syncthing's Relay Protocol v1 (syncthing/docs `specs/relay-v1.rst`), written
/// from that specification: each after a header of the magic 0x9E79BC40, its type and its
/// length, in XDR (big-endian 32-bit integers; opaque data and strings after their length,
/// padded to four bytes).
public enum RelayMessage: Sendable, Equatable {
    /// Type 0: "are you there", either way.
    case ping
    /// Type 1: the answer to a ping.
    case pong
    /// Type 2: join the relay and wait for invitations (permanent protocol mode).
    case joinRelayRequest
    /// Type 3: the one message of session mode: join the session this key names.
    case joinSessionRequest(key: [UInt8])
    /// Type 4: the relay's answer (``RelayResponse``).
    case response(RelayResponse)
    /// Type 5: ask for a session with the device of this id (temporary protocol mode).
    case connectRequest(id: RelayDeviceID)
    /// Type 6: a session to join, for both sides of it.
    case sessionInvitation(SessionInvitation)
    /// Type 7: the relay is at its limits.
    case relayFull

    /// The header's magic.
    public static let magic: UInt32 = 0x9E79_BC40
    /// The longest body a relay sends or takes here: an invitation is 116 bytes at most, a
    /// response's text a few words.
    public static let maximumLength = 1024
    /// Keys, ids and addresses are `opaque<32>`.
    static let maximumOpaque = 32

    var type: Int32 {
        switch self {
        case .ping: 0
        case .pong: 1
        case .joinRelayRequest: 2
        case .joinSessionRequest: 3
        case .response: 4
        case .connectRequest: 5
        case .sessionInvitation: 6
        case .relayFull: 7
        }
    }

    /// The message with its header, as it goes on the wire.
    public var encoded: [UInt8] {
        var body = XDRWriter()
        switch self {
        case .ping, .pong, .joinRelayRequest, .relayFull: break
        case .joinSessionRequest(let key): body.opaque(key)
        case .response(let response):
            body.int(response.code)
            body.opaque(Array(response.message.utf8))
        case .connectRequest(let id): body.opaque(id.bytes)
        case .sessionInvitation(let invitation):
            body.opaque(invitation.from.bytes)
            body.opaque(invitation.key)
            body.opaque(invitation.address)
            body.uint(UInt32(invitation.port))
            body.uint(invitation.serverSocket ? 1 : 0)
        }
        var message = XDRWriter()
        message.uint(Self.magic)
        message.int(type)
        message.int(Int32(body.bytes.count))
        return message.bytes + body.bytes
    }

    /// The first message of `bytes` and how many bytes it took, or `nil` when `bytes` holds
    /// only part of one so far.
    ///
    /// - Throws: ``RelayProtocolError`` for bytes no relay sends: another magic, an unknown
    ///   type, a length beyond ``maximumLength``, or a body that does not read as its type.
    public static func decode(_ bytes: some Collection<UInt8>) throws(RelayProtocolError) -> (message: RelayMessage, length: Int)? {
        let bytes = Array(bytes)
        guard bytes.count >= 12 else { return nil }
        var header = XDRReader(bytes[0..<12])
        let magic = try header.uint(), type = try header.int(), length = try header.int()
        guard magic == Self.magic else { throw .badMagic(magic) }
        guard length >= 0, length <= maximumLength else { throw .tooLong(Int(length)) }
        guard bytes.count >= 12 + Int(length) else { return nil }
        var body = XDRReader(bytes[12..<12 + Int(length)])
        let message: RelayMessage
        switch type {
        case 0: message = .ping
        case 1: message = .pong
        case 2: message = .joinRelayRequest
        case 3: message = .joinSessionRequest(key: try body.opaque(atMost: maximumOpaque))
        case 4:
            let code = try body.int()
            let text = try body.opaque(atMost: maximumLength)
            message = .response(RelayResponse(code: code, message: String(decoding: text, as: UTF8.self)))
        case 5: message = .connectRequest(id: try body.deviceID())
        case 6:
            let from = try body.deviceID(), key = try body.opaque(atMost: maximumOpaque)
            let address = try body.opaque(atMost: maximumOpaque), port = try body.uint(), server = try body.uint()
            guard port <= UInt32(UInt16.max) else { throw .malformed("an invitation's port \(port)") }
            guard server <= 1 else { throw .malformed("an invitation's server socket \(server)") }
            message = .sessionInvitation(SessionInvitation(from: from, key: key, address: address, port: UInt16(port), serverSocket: server == 1))
        case 7: message = .relayFull
        default: throw .unknownType(type)
        }
        guard body.isAtEnd else { throw .malformed("\(body.remaining) bytes after a message of type \(type)") }
        return (message, 12 + Int(length))
    }
}

/// A relay's answer: a code and its words.
public struct RelayResponse: Sendable, Equatable {
    public var code: Int32
    public var message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    public static let success = RelayResponse(code: 0, message: "success")
    public static let notFound = RelayResponse(code: 1, message: "not found")
    public static let alreadyConnected = RelayResponse(code: 2, message: "already connected")
    public static let internalError = RelayResponse(code: 99, message: "internal error")
    public static let unexpectedMessage = RelayResponse(code: 100, message: "unexpected message")
}

/// A session the relay has set up between two devices: join it in session mode at the
/// relay's address and this port with this key.
public struct SessionInvitation: Sendable, Equatable {
    /// Who is at the other end (their id on the relay).
    public var from: RelayDeviceID
    /// The session's key, the relay's random bytes.
    public var key: [UInt8]
    /// Where to join: the relay's IP address, or empty (or all zeros) for the address the
    /// protocol connection went to.
    public var address: [UInt8]
    public var port: UInt16
    /// Which side of the relayed connection this device is to take, as the relay sees it.
    public var serverSocket: Bool

    public init(from: RelayDeviceID, key: [UInt8], address: [UInt8], port: UInt16, serverSocket: Bool) {
        self.from = from
        self.key = key
        self.address = address
        self.port = port
        self.serverSocket = serverSocket
    }
}

/// Bytes that are not a relay's message.
public enum RelayProtocolError: Error, Equatable, CustomStringConvertible {
    case badMagic(UInt32)
    case unknownType(Int32)
    case tooLong(Int)
    case malformed(String)

    public var description: String {
        switch self {
        case .badMagic(let magic): "not the relay protocol: the header's magic is \(String(magic, radix: 16)), not 9e79bc40"
        case .unknownType(let type): "a relay message of an unknown type, \(type)"
        case .tooLong(let length): "a relay message of \(length) bytes, beyond the \(RelayMessage.maximumLength) any relay sends"
        case .malformed(let what): "a malformed relay message: \(what)"
        }
    }
}
