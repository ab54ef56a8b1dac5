import CarePlan
import CarePlanStore
import Foundation
import NodeIdentity
@testable import SyncNode
import SyncProtocol
import Testing
import Waiting

/// One household device, two primaries in this process: one identity and one state
/// directory, one node per person, each on its own.
@Suite(.serialized) struct HouseholdTests {
    let scratch = Scratch()
    var directory: String { scratch.path("household") }

    func configuration(_ primary: TestPrimary) -> CompanionConfiguration {
        var configuration = CompanionConfiguration(role: .household, name: "Hall", stateDirectory: directory, endpoint: primary.endpoint)
        configuration.deadlineClock = ManualClock()  // as makeCompanion's
        configuration.backoff = Backoff(first: .milliseconds(20), maximum: .milliseconds(200), jitter: 0.3)
        return configuration
    }

    /// The nodes of every person paired, each reaching `primaries[i]` for the i-th person.
    func nodes(_ primaries: [TestPrimary]) async throws -> [String: CompanionNode] {
        var nodes: [String: CompanionNode] = [:]
        for person in try await Household.people(in: directory, logger: configuration(primaries[0]).logger) {
            let state = try await CompanionNode(configuration: Household.configuration(for: person, of: configuration(primaries[0])))
            let primary = try #require(primaries.first { $0.node.configuration.nodeID == state.knownPrimaryID })
            nodes[primary.node.configuration.nodeID] = try await CompanionNode(
                configuration: Household.configuration(for: person, of: configuration(primary)))
        }
        return nodes
    }

    @Test func oneIdentityFollowsTwoPrimariesAndARevocationOnOneLeavesTheOther() async throws {
        let mum = try await TestPrimary(activityID: "mum-tablet")
        let dad = try await TestPrimary(activityID: "dad-tablet")
        let first = try await Household.pair(code: try mum.openCode(.household), configuration: configuration(mum))
        let second = try await Household.pair(code: try dad.openCode(.household, mayRecord: true), configuration: configuration(dad))
        #expect(first.primaryID == mum.node.configuration.nodeID)
        #expect(second.mayRecord)
        let identity = try NodeIdentity.loadOrCreate(in: directory, name: "Hall")
        #expect(try await mum.store.devices.all().map(\.id) == [identity.fingerprint])
        #expect(try await dad.store.devices.all().map(\.id) == [identity.fingerprint])
        // Paired again with Mum's primary: the new pairing replaces the old, Dad's stays.
        _ = try await Household.pair(code: try mum.openCode(.household, mayRecord: true), configuration: configuration(mum))
        let people = try await Household.people(in: directory, logger: configuration(mum).logger)
        #expect(people.map { URL(fileURLWithPath: $0).lastPathComponent }.sorted()
            == [first.primaryID, second.primaryID].map { String($0.prefix(16)) }.sorted())

        let nodes = try await nodes([mum, dad])
        let mumsNode = try #require(nodes[mum.node.configuration.nodeID])
        let dadsNode = try #require(nodes[dad.node.configuration.nodeID])
        #expect(mumsNode.identity.fingerprint == identity.fingerprint && dadsNode.identity.fingerprint == identity.fingerprint)
        let following = [Task { await mumsNode.run() }, Task { await dadsNode.run() }]
        #expect(await firstContext(mumsNode)?.days.first?.events.first?.key.activityID == "mum-tablet")
        #expect(await firstContext(dadsNode)?.days.first?.events.first?.key.activityID == "dad-tablet")

        // Mum revokes the device on her primary: that node stops for good; Dad's goes on.
        _ = try await mum.store.core.access.revokeDevice(identity.fingerprint, device: "cli")
        let refused = await mumsNode.firstEvent(within: patience) { if case .error(let code, _) = $0 { code } else { nil } }
        #expect(refused == "NOT_PAIRED")
        _ = await following[0].value
        let day = try #require(dadsNode.context?.days.first?.day)
        let result = try await dadsNode.complete(EventKey(activityID: "dad-tablet", day: day, occurrence: 0))
        guard case .accepted = result else { throw TestFailure("Dad's primary did not record it: \(result)") }
        await dadsNode.stop()
        _ = await following[1].value
        await mum.stop()
        await dad.stop()
    }

    @Test func aSinglePairingOfAnEarlierVersionIsMovedUnderPeople() async throws {
        let primary = try await TestPrimary()
        // An earlier household device: its state at the top of its directory.
        let earlier = try await CompanionNode(configuration: configuration(primary))
        _ = try await earlier.pair(code: try primary.openCode(.household))
        let fingerprint = earlier.identity.fingerprint
        try earlier.close()
        let people = try await Household.people(in: directory, logger: configuration(primary).logger)
        #expect(people == ["\(directory)/people/\(primary.node.configuration.nodeID.prefix(16))"])
        #expect(!FileManager.default.fileExists(atPath: directory + "/companion.sqlite"))
        let moved = try await CompanionNode(configuration: Household.configuration(for: people[0], of: configuration(primary)))
        #expect(moved.knownPrimaryID == primary.node.configuration.nodeID)
        #expect(moved.identity.fingerprint == fingerprint)
        await primary.stop()
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
