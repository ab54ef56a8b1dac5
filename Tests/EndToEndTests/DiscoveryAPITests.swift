import ChildProcess
import Discovery
import Foundation
import Testing
import Waiting

extension MDNSTests {
/// The Discovery module against the real daemon. These services say `role=test`, so that
/// companions looking for primaries ignore them.
@Suite struct DiscoveryAPITests {
    let type = "_caresync._tcp"

    /// A name no other test run uses.
    func uniqueName(_ label: String) -> String {
        "\(label) \(UUID().uuidString.prefix(6))"
    }

    @Test func advertiseBrowseResolve() async throws {
        let name = uniqueName("Kitchen tablet")
        let advertisement = try await ServiceAdvertisement.register(
            name: name, type: type, port: 45_678, txt: ["txtvers": "1", "node": "primary-1", "role": "test"])
        defer { advertisement.cancel() }
        #expect(advertisement.name == name)

        let found = try #require(await firstFound(named: name))
        let resolved = try await ServiceResolver.resolve(found)
        #expect(resolved.port == 45_678)
        #expect(resolved.address == "127.0.0.1")
        #expect(resolved.txt == ["txtvers": "1", "node": "primary-1", "role": "test"])
    }

    @Test func servicesPublishedByAvahiAreFoundAndOursAreListedByAvahi() async throws {
        // A type of its own: `avahi-browse -rt` waits for every service of its type to
        // resolve, and in a CI run it said nothing for a minute while other tests' primaries
        // of `_caresync._tcp` came and went.
        let type = "_caresync-listed._tcp"
        let theirs = uniqueName("Avahi published")
        let publisher = Process()
        publisher.executableURL = URL(fileURLWithPath: "/usr/bin/avahi-publish")
        publisher.arguments = ["-s", theirs, type, "7654", "txtvers=1", "role=test"]
        publisher.standardOutput = FileHandle.nullDevice
        publisher.standardError = FileHandle.nullDevice
        try publisher.runUnblocked()
        defer {
            publisher.terminate()
            publisher.waitUntilExit()
        }
        let found = try #require(await firstFound(named: theirs, ofType: type))
        #expect(try await ServiceResolver.resolve(found).txt["role"] == "test")

        let ours = "Ours-\(UUID().uuidString.prefix(6))"  // avahi-browse -p escapes spaces
        let advertisement = try await ServiceAdvertisement.register(name: ours, type: type, port: 7655, txt: ["txtvers": "1", "plan": "p-1"])
        defer { advertisement.cancel() }
        let listing = try await CareSyncCommand.run(executable: URL(fileURLWithPath: "/usr/bin/avahi-browse"), ["-rpt", type]).stdout
        // A line per protocol; each gives the host's address as Avahi resolved it, which in the
        // sandbox may be 127.0.0.1 or ::1 whatever the line's protocol (CI saw "IPv4;…;::1").
        let lines = listing.split(separator: "\n").filter { $0.hasPrefix("=") && $0.contains(ours) }
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(line.contains(";127.0.0.1;7655;") || line.contains(";::1;7655;"), "\(line)")
            #expect(line.contains("\"plan=p-1\"") && line.contains("\"txtvers=1\""))
        }
    }

    /// A browse whose consumer is cancelled while services pour in ends: the cancellation
    /// must not wait for the callback that is yielding to it at that moment (a companion
    /// looking for its primary hung so, in a loaded suite).
    @Test func aBrowseCancelledWhileServicesArriveEnds() async throws {
        // A type of its own: `avahi-browse -rt` in the test beside it never ended while services
        // of its type came and went this fast.
        let type = "_caresync-pour._tcp"
        let label = uniqueName("Pouring")
        var advertisements: [ServiceAdvertisement] = []
        for index in 0..<6 {
            advertisements.append(try await ServiceAdvertisement.register(
                name: "\(label) \(index)", type: type, port: 7100 + index, txt: ["role": "test"]))
        }
        defer { for advertisement in advertisements { advertisement.cancel() } }
        for _ in 0..<20 {
            let events = try ServiceBrowser.browse(type: type)
            let (first, ended) = (Eventual<Void>(), Eventual<Void>())
            let consumer = Task {
                for await _ in events { first.resolve(.success(())) }
                ended.resolve(.success(()))
            }
            try await first.value
            consumer.cancel()
            try await waitFor("the cancelled browse to end", seen: { "still browsing" }) { ended.isResolved }
        }
    }

    @Test func aNameConflictIsRenamedAndReported() async throws {
        let name = uniqueName("Twin")
        let first = try await ServiceAdvertisement.register(name: name, type: type, port: 7001, txt: [:])
        defer { first.cancel() }
        let second = try await ServiceAdvertisement.register(name: name, type: type, port: 7002, txt: [:])
        defer { second.cancel() }
        #expect(second.name == name + " #2")
        let third = try await ServiceAdvertisement.register(name: name, type: type, port: 7004, txt: [:])
        defer { third.cancel() }
        #expect(third.name == name + " #3")
    }

    @Test func aWithdrawnServiceIsLost() async throws {
        let name = uniqueName("Leaving")
        let advertisement = try await ServiceAdvertisement.register(name: name, type: type, port: 7003, txt: [:])
        let events = try ServiceBrowser.browse(type: type)
        var sawFound = false
        for await event in events {
            switch event {
            case .found(let service) where service.name == name:
                sawFound = true
                advertisement.cancel()
            case .lost(let service) where service.name == name:
                #expect(sawFound)
                return
            default:
                continue
            }
        }
        Issue.record("the browser ended without seeing the service leave")
    }

    func firstFound(named name: String, ofType type: String? = nil, timeout: Duration = patience) async -> DiscoveredService? {
        guard let events = try? ServiceBrowser.browse(type: type ?? self.type) else { return nil }
        return await withTaskGroup(of: DiscoveredService?.self) { group in
            group.addTask {
                for await event in events {
                    if case .found(let service) = event, service.name == name { return service }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
}
