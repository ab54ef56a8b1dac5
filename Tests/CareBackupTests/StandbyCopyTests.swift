@testable import CareBackup
import CarePlan
import CarePlanStore
import Foundation
import Testing

/// A standby copy filled from a store's images, brought up to date by the pages that changed,
/// kept encrypted across reopening and crashes, and exported as a backup that restores.
struct StandbyCopyTests {
    let fixture = try! BackupTests()
    var directory: String { fixture.directory + "/standby" }

    /// One more outcome in `store`: a change of a few pages.
    func record(_ occurrence: Int, in store: CarePlanStore) async throws {
        let outcome = Outcome(state: .completed, values: [], recordedAt: Date(timeIntervalSince1970: 1_795_000_000), device: "watch")
        _ = try await store.record(outcome, for: EventKey(activityID: "walk", day: CalendarDay("2026-11-24")!.adding(days: occurrence), occurrence: 0))
    }

    @Test func aCopyTakesOnlyTheChangedPagesKeepsThemAndExportsABackupThatRestores() async throws {
        let (store, identityDirectory) = try await fixture.primary()
        let identity = try IdentityFiles.read(from: identityDirectory)
        #expect(identity.names == ["health-record.sealed", "identity.pem"], "no lock, no launch")
        let copy = try StandbyCopy(directory: directory)
        #expect(copy.held == StandbyHeld())

        let first = try await StoreImage.make(of: store)
        let fill = try #require(first.step(from: copy.held, identity: identity, committedAt: nil))
        #expect(fill.pages.count == first.pageCount && fill.identity == identity)
        try copy.apply(fill)
        #expect(copy.held.sha256 == first.sha256 && copy.held.revision == first.revision)
        #expect(first.step(from: copy.held, identity: identity, committedAt: nil) == nil, "nothing to send")

        try await record(0, in: store)
        let second = try await StoreImage.make(of: store)
        #expect(second.revision > first.revision)
        let step = try #require(second.step(from: copy.held, identity: identity, committedAt: Date()))
        #expect(step.identity == nil, "the identity is held already")
        #expect(step.pages.count <= 6 && step.pages.count * 4 < second.pageCount,
                "\(step.pages.count) of \(second.pageCount) pages changed: pages keep their numbers from one image to the next")
        try copy.apply(step)
        #expect(copy.status.steps == 1, "a step is appended, not a new base")

        // What was kept is what a new process reads, sealed on disk.
        let reopened = try StandbyCopy(directory: directory)
        #expect(reopened.held == copy.held)
        for name in ["base", "log"] {
            let bytes = try #require(FileManager.default.contents(atPath: directory + "/" + name))
            #expect(!bytes.isEmpty && !String(decoding: bytes, as: UTF8.self).contains("Backed up"), "\(name) is sealed")
        }
        let keyMode = try FileManager.default.attributesOfItem(atPath: directory + "/key")[.posixPermissions] as? Int
        #expect(keyMode == 0o600)

        let file = fixture.directory + "/export.csb"
        let manifest = try await StandbyCopy.export(from: directory, to: file, passphrase: fixture.passphrase, now: Date())
        #expect(manifest.store == (try await store.summary()) && manifest.withIdentity)
        let elsewhere = fixture.directory + "/new/store.sqlite"
        try FileManager.default.createDirectory(atPath: fixture.directory + "/new", withIntermediateDirectories: true)
        try await StoreRestore.restore(file, passphrase: fixture.passphrase, storePath: elsewhere, identityDirectory: elsewhere + ".identity", replace: false)
        let restored = try await CarePlanStore(path: elsewhere)
        #expect(try await restored.summary() == (try await store.summary()))
        #expect(try String(contentsOfFile: elsewhere + ".identity/identity.pem", encoding: .utf8) == "KEY")
    }

    @Test func aTornStepIsDroppedAndAnAlteredCopyIsRefused() async throws {
        let (store, _) = try await fixture.primary()
        let copy = try StandbyCopy(directory: directory)
        var images = [try await StoreImage.make(of: store)]
        try copy.apply(try #require(images[0].step(from: copy.held, identity: nil, committedAt: nil)))
        for occurrence in 0..<2 {
            try await record(occurrence, in: store)
            images.append(try await StoreImage.make(of: store))
            try copy.apply(try #require(images.last!.step(from: copy.held, identity: nil, committedAt: nil)))
        }
        let log = directory + "/log"
        let whole = try #require(FileManager.default.contents(atPath: log))

        // A crash in the middle of the last step's append: the copy is at the step before.
        try whole.dropLast(7).write(to: URL(fileURLWithPath: log))
        let afterCrash = try StandbyCopy(directory: directory)
        #expect(afterCrash.held.sha256 == images[1].sha256)
        #expect(try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int ?? 0 < whole.count - 7, "the torn record is cut off")
        try afterCrash.apply(try #require(images[2].step(from: afterCrash.held, identity: nil, committedAt: nil)))
        #expect(try StandbyCopy(directory: directory).held.sha256 == images[2].sha256)

        // A byte changed in the first step, or in the base: refused, not read as an older copy.
        var altered = try #require(FileManager.default.contents(atPath: log))
        altered[30] ^= 1
        try altered.write(to: URL(fileURLWithPath: log))
        #expect { try StandbyCopy(directory: directory) } throws: { "\($0)".contains("step 0 does not open with the copy's key") }
        var base = try #require(FileManager.default.contents(atPath: directory + "/base"))
        base[base.count / 2] ^= 1
        try base.write(to: URL(fileURLWithPath: directory + "/base"))
        #expect { try StandbyCopy(directory: directory) } throws: { "\($0)".contains("does not open with the copy's key") }
    }

    @Test func aStepForAnotherImageOrWithWrongPagesChangesNothing() async throws {
        let (store, _) = try await fixture.primary()
        let copy = try StandbyCopy(directory: directory)
        let first = try await StoreImage.make(of: store)
        try copy.apply(try #require(first.step(from: copy.held, identity: nil, committedAt: nil)))
        try await record(0, in: store)
        let second = try await StoreImage.make(of: store)
        let step = try #require(second.step(from: copy.held, identity: nil, committedAt: nil))
        let held = copy.held

        var otherBase = step
        otherBase.baseSHA256 = Array(repeating: 7, count: 32)
        #expect(throws: StandbyError.notItsBase(revision: second.revision)) { try copy.apply(otherBase) }
        var alteredPage = step
        alteredPage.pages[0].data[100] ^= 1
        #expect(throws: StandbyError.digestMismatch(revision: second.revision)) { try copy.apply(alteredPage) }
        var outside = step
        outside.pages[0].number = step.pageCount + 1
        #expect(throws: StandbyError.self) { try copy.apply(outside) }
        #expect(copy.held == held)
        #expect(try StandbyCopy(directory: directory).held == held, "nothing kept")
    }

    /// Steps of random pages over a 1.2 MB image: the log outgrows the base and the base is
    /// written anew, the copy the same before and after.
    @Test func theLogIsFoldedIntoANewBaseOnceItOutgrowsIt() throws {
        var random = SystemRandomNumberGenerator()
        let pageSize = 4096
        var bytes = (0..<300 * pageSize).map { _ in UInt8.random(in: 0...255, using: &random) }
        let copy = try StandbyCopy(directory: directory)
        var image = StoreImage(revision: 1, pageSize: pageSize, bytes: bytes)
        try copy.apply(try #require(image.step(from: copy.held, identity: nil, committedAt: nil)))
        var folded = false
        for revision in 2...20 {
            for page in (0..<300).shuffled().prefix(30) { bytes[page * pageSize] &+= 1 }
            image = StoreImage(revision: revision, pageSize: pageSize, bytes: bytes)
            let step = try #require(image.step(from: copy.held, identity: nil, committedAt: nil))
            #expect(step.pages.count == 30)
            let before = copy.status.steps
            try copy.apply(step)
            if copy.status.steps < before { folded = true }
        }
        #expect(folded, "the log was folded into a new base")
        let logSize = try FileManager.default.attributesOfItem(atPath: directory + "/log")[.size] as? Int ?? 0
        #expect(logSize <= max(bytes.count, StandbyFiles.minimumLog) + 200_000)
        let reopened = try StandbyCopy(directory: directory)
        #expect(reopened.held.sha256 == image.sha256 && reopened.held.revision == 20)
    }
}
