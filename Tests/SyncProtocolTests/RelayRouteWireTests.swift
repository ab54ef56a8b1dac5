import Foundation
import RelayProtocol
import SyncProtocol
import Testing

/// The relays of a HelloAck or PairAccept (protocol section 25), read as routes.
struct RelayRouteWireTests {
    @Test func theVectorsRouteReadsAsTheRelayAndThePrimarysRelayID() throws {
        let vector = try #require(VectorTests.vectors.valid.first { $0.name == "hello-ack-relays" })
        let envelope = try Caresync_V1_Envelope(jsonUTF8Data: JSONEncoder().encode(vector.message))
        let routes = try RelayRoute.routes(wire: envelope.helloAck.relays)
        #expect(routes.count == 1)
        let route = try #require(routes.first)
        #expect(route.relay.host == "relay.example.net" && route.relay.port == 22067)
        #expect(route.relay.id == (try RelayDeviceID("64BY6UM-ULFD7PV-THN4BSC-TEA6RUR-PQPVYOK-FRESVPJ-3RBYUPQ-BOUOKAT")))
        #expect(route.device.description == "MWDXMJR-WTLXA63-AKK4T4E-G5M2YO7-HAS3UZJ-FKSOWZT-HL6NN2D-RHVBGQU")
        // What goes out is what came in.
        #expect(Caresync_V1_Envelope.helloAck(
            version: 1, nodeID: envelope.helloAck.nodeID, softwareVersion: envelope.helloAck.softwareVersion,
            planID: envelope.helloAck.planID, displayName: envelope.helloAck.displayName, features: envelope.helloAck.features,
            pingInterval: .milliseconds(Int64(envelope.helloAck.pingIntervalMs)),
            idleTimeout: .milliseconds(Int64(envelope.helloAck.idleTimeoutMs)),
            maximumFrameBytes: Int(envelope.helloAck.maxFrameBytes), relays: routes).helloAck.relays == envelope.helloAck.relays)
    }

    @Test func aRouteOfAnotherSchemeIsPassedOverAndABrokenOneRefused() throws {
        let later = Caresync_V1_RelayRoute.with { $0.relay = "relay+quic://relay.example.net:443/?id=X"; $0.deviceID = "Y" }
        #expect(try RelayRoute.routes(wire: [later]).isEmpty)
        let broken = Caresync_V1_RelayRoute.with { $0.relay = "relay://relay.example.net:22067/?id=NOT-AN-ID"; $0.deviceID = "Y" }
        let error = try #require(throws: ProtocolError.self) { try RelayRoute.routes(wire: [broken]) }
        #expect(error.code == .malformedFrame)
    }
}
