import LineOutput
import RelayTransport
import ServiceLifecycle
import SyncNode

/// A line for every change in how the primary stands with each of its relays: joined (and as
/// which relay id), or why not, while it tries again.
struct RelayNotices: Service {
    let node: PrimaryNode
    let json: Bool

    func run() async throws {
        await cancelWhenGracefulShutdown { [node, json] in
            await withDiscardingTaskGroup { group in
                for membership in node.relayMemberships {
                    group.addTask {
                        let relay = "\(membership.relay.host):\(membership.relay.port)"
                        for await status in membership.statuses() {
                            switch status {
                            case .connecting: continue
                            case .joined:
                                json ? emitJSON(["event": "relay", "relay": .string(relay), "status": "joined", "as": .string(membership.deviceID.description)])
                                    : emit("Waiting on the relay at \(relay) as \(membership.deviceID)")
                            case .failed(let reason):
                                json ? emitJSON(["event": "relay", "relay": .string(relay), "status": "failed", "reason": .string(reason)])
                                    : emit("The relay at \(relay) cannot be used now (\(reason)); trying again")
                            }
                        }
                    }
                }
            }
        }
    }
}
