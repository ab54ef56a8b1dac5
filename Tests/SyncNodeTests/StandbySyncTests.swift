@testable import CareBackup
import CarePlan
import CarePlanStore
import Foundation
@testable import SyncNode
import SyncProtocol
import Testing
import Waiting

/// A household device's standby copy, filled and kept up to date by a primary in this
/// process: only a device paired with `--standby` gets one, only changed pages travel, and a
/// step too large for a frame goes in pieces.
@Suite struct StandbySyncTests {
    /// The next standby step `node` reports, or `nil`.
    func nextStep(_ node: CompanionNode, after revision: Int = -1) async -> StandbyUpdate? {
        await node.firstEvent(within: patience) { if case .standby(let update) = $0, update.revision > revision { update } else { nil } }
    }

    let directories = Scratch()

    /// A path for `name` in the test's scratch directory, not there yet.
    func scratch(_ name: String) -> String {
        directories.path("\(name)-\(UUID().uuidString)")
    }

    func complete(_ occurrence: Int, daysAgo: Int, in store: CarePlanStore) async throws {
        let day = CalendarDay.containing(Date(), in: .gmt).adding(days: -daysAgo)
        _ = try await store.record(
            Outcome(state: .completed, recordedAt: Date(), device: "cli"), for: EventKey(activityID: "apple", day: day, occurrence: occurrence))
    }

    @Test func aStandbyCopyFollowsTheStoreWithTheIdentityAndOnlyForAStandbyPairing() async throws {
        let identity = scratch("identity")
        try FileManager.default.createDirectory(atPath: identity, withIntermediateDirectories: true)
        try "KEY".write(toFile: identity + "/identity.pem", atomically: true, encoding: .utf8)
        let primary = try await TestPrimary(configure: { $0.identityDirectory = identity })
        let copyDirectory = scratch("standby")
        let household = try await primary.pairedCompanion(.household, standby: try StandbyCopy(directory: copyDirectory))
        let bystander = try await primary.pairedCompanion(.household, standby: try StandbyCopy(directory: scratch("bystander")), pairedAsStandby: false)
        let running = [Task { await household.run() }, Task { await bystander.run() }]
        #expect(await firstContext(bystander) != nil, "the bystander is connected")

        let fill = try #require(await nextStep(household))
        #expect(fill.lag == nil, "a first fill is behind nothing")
        let copy = try StandbyCopy(directory: copyDirectory)
        #expect(copy.held.sha256 == (try await StoreImage.make(of: primary.store)).sha256)
        #expect(copy.held.identityDigest == (try IdentityFiles.read(from: identity)).digest)

        try await complete(0, daysAgo: 1, in: primary.store)
        let step = try #require(await nextStep(household, after: fill.revision))
        #expect(step.revision == (try await primary.store.revision()))
        #expect(step.pages * 4 < fill.pages, "\(step.pages) pages of \(fill.pages)")
        #expect(try #require(step.lag) < 60, "the lag from the commit is measured")
        #expect(try StandbyCopy(directory: copyDirectory).held.revision == step.revision)

        // Back after a while away: the copy catches up with the pages changed meanwhile.
        await household.stop()
        _ = await running[0].value
        try await complete(1, daysAgo: 1, in: primary.store)
        try await complete(2, daysAgo: 1, in: primary.store)
        let returned = try await makeCompanion(
            .household, endpoint: primary.endpoint, stateDirectory: household.configuration.stateDirectory,
            standby: try StandbyCopy(directory: copyDirectory))
        let back = Task { await returned.run() }
        let caughtUp = try #require(await nextStep(returned, after: step.revision))
        #expect(caughtUp.revision == (try await primary.store.revision()))
        #expect(caughtUp.pages * 4 < fill.pages)
        #expect(try #require(caughtUp.lag) > 0)

        // Measurements add nothing to the change log, and still reach the copy at once.
        let watch = try await primary.pairedCompanion(.watch)
        let watching = Task { await watch.run() }
        #expect(await firstContext(watch) != nil)
        let sensor = MeasurementSource(id: "watch-sensor", name: "Test watch sensor", manufacturer: "CareSync", model: "test")
        let revision = try await primary.store.revision()
        _ = try await watch.measure([MeasurementSample(id: "hr-1", type: .heartRate, value: 64, unit: "/min", start: Date(), sourceID: sensor.id)],
                                    sources: [sensor])
        try await waitFor("the heart rate in the copy", seen: { "\(returned.configuration.standby!.status)" }) {
            let copy = try StandbyCopy.read(from: copyDirectory)
            let database = scratch("image") + ".sqlite"
            defer { try? FileManager.default.removeItem(atPath: database) }
            FileManager.default.createFile(atPath: database, contents: Data(copy.image))
            return try await CarePlanStore(path: database).summary().measurements == 1
        }
        #expect(try await primary.store.revision() == revision, "no change in the log")
        await watch.stop()
        _ = await watching.value

        // The household device paired without --standby offered it and was sent nothing.
        #expect(try StandbyCopy(directory: bystander.configuration.standby!.directory).held == StandbyHeld())
        await returned.stop()
        _ = await back.value
        await bystander.stop()
        _ = await running[1].value
        await primary.stop()
    }

    /// The vectors of section 23 hold together: standby-pages applied to the image that
    /// standby-held describes (page 1 all 0x01, page 2 all 0x02) makes the image whose digest
    /// standby-applied names.
    @Test func theStandbyVectorsMakeTheImageTheyName() throws {
        let base = [UInt8](repeating: 1, count: 512) + [UInt8](repeating: 2, count: 512)
        let held = try StandbyHeld(wire: try protocolVector("standby-held").standbyHeld)
        #expect(held == StandbyHeld(StoreImage(revision: 14, pageSize: 512, bytes: base), identityDigest: held.identityDigest))
        var assembly = StandbyAssembly()
        let pages = try protocolVector("standby-pages").standbyPages
        let step = try #require(try assembly.add(pages))
        let image = try step.apply(to: base, baseSHA256: held.sha256)
        #expect(image == [UInt8](repeating: 1, count: 512) + [UInt8](repeating: 3, count: 512) + [UInt8](repeating: 4, count: 512))
        let applied = try protocolVector("standby-applied").standbyApplied
        #expect(applied.revision == 15 && Array(applied.imageSha256) == step.sha256)
        #expect(step.committedAt == Date(timeIntervalSince1970: 1_795_420_800))
    }

    @Test func aStepLargerThanAFrameGoesInPiecesAndIsPutTogether() throws {
        let pageSize = 4096
        let bytes = (0..<600 * pageSize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }
        let image = StoreImage(revision: 9, pageSize: pageSize, bytes: bytes)
        let identity = IdentityFiles(["identity.pem": Array("KEY".utf8)])
        let step = try #require(image.step(from: StandbyHeld(), identity: identity, committedAt: Date(timeIntervalSince1970: 1_795_000_000)))
        let pieces = step.pieces(maximumFrameBytes: Frame.defaultMaximumBytes)
        #expect(pieces.count == 5, "600 pages of 4 KiB in pieces of at most 512 KiB")
        for piece in pieces {
            let size: [UInt8] = try piece.serializedBytes()
            #expect(size.count <= Frame.defaultMaximumBytes / 2 + 1024)
        }
        #expect(pieces.dropFirst().allSatisfy { $0.standbyPages.identity.isEmpty })
        var assembly = StandbyAssembly()
        var whole: StandbyStep?
        for (index, piece) in pieces.enumerated() {
            whole = try assembly.add(piece.standbyPages)
            #expect((whole != nil) == (index == pieces.count - 1))
        }
        #expect(whole == step)

        var stray = pieces[1].standbyPages
        var fresh = StandbyAssembly()
        _ = try fresh.add(pieces[0].standbyPages)
        stray.revision += 1
        #expect(throws: ProtocolError.self) { try fresh.add(stray) }
    }
}
