import RelayProtocol

extension RelayRoute {
    var wire: Caresync_V1_RelayRoute {
        .with {
            $0.relay = relay.description
            $0.deviceID = device.description
        }
    }

    /// The routes of a PairAccept or HelloAck, in their order (protocol section 25). A route
    /// of another scheme than `relay://` (a later kind of relay) is passed over.
    ///
    /// - Throws: `MALFORMED_FRAME` for a `relay://` route whose address or device id does
    ///   not read.
    public static func routes(wire: [Caresync_V1_RelayRoute]) throws(ProtocolError) -> [RelayRoute] {
        var routes: [RelayRoute] = []
        for route in wire where route.relay.hasPrefix("relay://") {
            do {
                routes.append(RelayRoute(relay: try RelayAddress(route.relay), device: try RelayDeviceID(route.deviceID)))
            } catch {
                throw ProtocolError.malformed("relay route \(route.relay): \(error)")
            }
        }
        return routes
    }
}
