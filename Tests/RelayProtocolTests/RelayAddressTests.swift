import RelayProtocol
import Testing

@Suite struct RelayAddressTests {
    static let id = "T2QMTFE-UGB7CB2-HDNRMZX-X3QLHRY-NQDNLDJ-BUCTHOS-IZI6NOG-BFUXZAX"

    @Test func theURIStrelaysrvPrintsIsRead() throws {
        let printed = "relay://127.0.0.1:22999/?id=\(Self.id)&pingInterval=1m0s&networkTimeout=2m0s&sessionLimitBps=0&globalLimitBps=0&statusAddr=127.0.0.1:22998&providedBy="
        let relay = try RelayAddress(printed)
        #expect(relay.host == "127.0.0.1")
        #expect(relay.port == 22999)
        #expect(relay.id == (try RelayDeviceID(Self.id)))
        #expect(relay.description == "relay://127.0.0.1:22999/?id=\(Self.id)")
        #expect(try RelayAddress(relay.description) == relay)
    }

    @Test func anIPv6HostIsBracketed() throws {
        let relay = try RelayAddress("relay://[::1]:22067/?id=\(Self.id)")
        #expect(relay.host == "::1")
        #expect(relay.description == "relay://[::1]:22067/?id=\(Self.id)")
    }

    @Test func whatNamesNoRelaySaysWhy() {
        #expect(throws: RelayAddressError.notARelayURI("https://example.org/")) { try RelayAddress("https://example.org/") }
        #expect(throws: RelayAddressError.noHostAndPort("relay://127.0.0.1/?id=\(Self.id)")) { try RelayAddress("relay://127.0.0.1/?id=\(Self.id)") }
        #expect(throws: RelayAddressError.noID("relay://127.0.0.1:22067/")) { try RelayAddress("relay://127.0.0.1:22067/") }
        #expect(throws: RelayAddressError.badID("relay://127.0.0.1:22067/?id=ABC", .wrongLength(3))) { try RelayAddress("relay://127.0.0.1:22067/?id=ABC") }
    }
}
