import FHIRTestServer
import Foundation
import Testing

/// `caresync fhir observations`: measurements out as R4 Observations with their Patient and
/// Devices, valid by an independent validator, coded as the vital-signs profile asks, sent
/// once, resumed after a failure, and from the start of the day on a first upload.
struct FHIRObservationsTests {
    let scratch = Scratch()
    let caresync: CareSyncCommand

    init() async throws {
        caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        let load = try await caresync.run("plan", "load", CareSyncCommand.example("zombiecare-plan.json"), "--effective", "2026-11-16")
        guard load.status == 0 else { throw CommandFailed(result: load) }
        for arguments in [
            ["heart-rate", "72", "--at", "2026-11-18T08:00", "--source", "Wrist cuff"],
            ["blood-pressure", "128/82", "mmHg", "--at", "2026-11-18T08:05", "--source", "Wrist cuff"],
            ["steps", "8000", "--at", "2026-11-18T00:00", "--until", "2026-11-19T00:00"],
            ["steps", "1200", "--at", "2026-11-18T10:00", "--until", "2026-11-18T11:00"],
            ["glucose", "101", "mg/dL", "--at", "2026-11-18T12:00"],
            ["glucose", "5.6", "mmol/L", "--at", "2026-11-18T18:00"],
        ] {
            let added = try await caresync.run(["measurements", "add"] + arguments)
            guard added.status == 0 else { throw CommandFailed(result: added) }
        }
    }

    func upload(_ server: FHIRTestServer, _ arguments: String...) async throws -> [String: Any] {
        let result = try await caresync.run(["fhir", "observations", "--server", server.url, "--json", "--retry-delay", "0.01"] + arguments)
        guard result.status == 0 else { throw CommandFailed(result: result) }
        return try #require(WatchProcess.object(result.lines.last ?? ""), "\(result.stdout)")
    }

    @Test func theBundleIsValidAndCodedAsTheVitalSignsProfileSays() async throws {
        let file = scratch.path("observations.json")
        let written = try await caresync.run("fhir", "observations", "--since", "2026-11-18", "--out", file)
        #expect(written.status == 0 && written.stdout == "6 Observations\n", "\(written.stdout)\(written.stderr)")
        let validation = try await FHIRValidator.validate(file)
        #expect(validation.status == 0 && validation.stdout.contains("10 resources, 10 valid, 0 invalid"), "\(validation.stdout)")

        let bundle = try FHIRTestServer.object(Data(contentsOf: URL(fileURLWithPath: file)))
        let resources = try #require(bundle["entry"] as? [[String: Any]]).compactMap { $0["resource"] as? [String: Any] }
        #expect(resources.compactMap { $0["resourceType"] as? String } == ["Patient", "Device", "Device"] + Array(repeating: "Observation", count: 6))
        #expect(value(resources[0], "name", 0, "text") as? String == "Zed Zombie" && resources[0]["birthDate"] as? String == "1986-10-31")
        #expect(value(resources[0], "identifier", 0, "value") as? String == "ZC-0042")
        let observations = Array(resources.dropFirst(3))
        for observation in observations {
            // What R4's Observation and vital-signs profile require of each.
            #expect(observation["status"] as? String == "final")
            #expect(value(observation, "subject", "identifier", "value") as? String == "ZC-0042")
            #expect(value(observation, "device", "type") as? String == "Device")
            #expect(observation["effectiveDateTime"] != nil || observation["effectivePeriod"] != nil)
            #expect(value(observation, "identifier", 0, "system") as? String != nil)
        }
        let codes = observations.map { value($0, "code", "coding", 0, "code") as? String ?? "" }
        #expect(codes == ["8867-4", "85354-9", "41950-7", "55423-8", "2339-0", "15074-8"])
        let categories = observations.map { value($0, "category", 0, "coding", 0, "code") as? String ?? "" }
        #expect(categories == ["vital-signs", "vital-signs", "activity", "activity", "vital-signs", "vital-signs"])
        let units = observations.map { (value($0, "valueQuantity", "code") ?? value($0, "component", 0, "valueQuantity", "code")) as? String ?? "" }
        #expect(units == ["/min", "mm[Hg]", "{steps}", "{steps}", "mg/dL", "mmol/L"])
        #expect(value(observations[0], "meta", "profile", 0) as? String == "http://hl7.org/fhir/StructureDefinition/heartrate")
        #expect(value(observations[0], "effectiveDateTime") as? String == "2026-11-18T08:00:00.000+01:00")
        let pressure = observations[1]
        #expect(pressure["valueQuantity"] == nil, "a blood pressure panel holds its values in components")
        #expect(value(pressure, "component", 0, "code", "coding", 0, "code") as? String == "8480-6")
        #expect(value(pressure, "component", 1, "code", "coding", 0, "code") as? String == "8462-4")
        #expect((value(pressure, "component", 1, "valueQuantity", "value") as? NSNumber)?.doubleValue == 82)
        #expect(value(observations[3], "effectivePeriod", "end") as? String == "2026-11-18T11:00:00.000+01:00")
    }

    @Test func sendingAgainCreatesNothingAndAFailedUploadResumes() async throws {
        let failing = try await FHIRTestServer(options: .init(fail: [2]))
        let failed = try await caresync.run(
            ["fhir", "observations", "--server", failing.url, "--since", "2026-11-01", "--batch-size", "4", "--attempts", "1"])
        #expect(failed.status == 1 && failed.stderr.contains("kept failing (1 attempt, last HTTP 503)"), "\(failed.stderr)")
        #expect(failing.resources("Observation").count == 4)
        let resumed = try await upload(failing, "--batch-size", "4")
        #expect(resumed["observations"] as? Int == 2 && resumed["created"] as? Int == 2)
        #expect(failing.resources("Observation").count == 6)
        #expect(failing.resources("Patient").count == 1 && failing.resources("Device").count == 2, "one of each, however often sent")

        let again = try await upload(failing, "--since", "2026-11-01")
        #expect(again["observations"] as? Int == 6 && again["existing"] as? Int == 6 && again["created"] as? Int == 0)
        #expect(failing.resources("Observation").count == 6)
        let nothingNew = try await upload(failing)
        #expect(nothingNew["observations"] as? Int == 0)
    }

    /// A first upload to a server sends what was taken today, not the plan's history, and says
    /// so; what is measured afterwards goes with the next.
    @Test func aFirstUploadStartsAtTheStartOfTheDay() async throws {
        let server = try await FHIRTestServer()
        let first = try await caresync.run("fhir", "observations", "--server", server.url)
        #expect(first.status == 0)
        #expect(first.stdout.contains("sending the measurements taken since ") && first.stdout.contains("--since sends earlier ones"))
        #expect(first.lines.last == "0 Observations, 0 created, 0 already there; the next upload starts after measurement 6", "\(first.stdout)")
        let now = try await caresync.run("measurements", "add", "heart-rate", "66")
        #expect(now.status == 0)
        let next = try await upload(server)
        #expect(next["observations"] as? Int == 1 && next["created"] as? Int == 1 && next["cursor"] as? Int == 7)
        #expect(server.resources("Observation").count == 1)
    }

    /// `caresync primary --fhir-server`: a watch's measurement reaches the server within a
    /// few rounds, a failed post is tried again, and a server that hangs holds up no completion.
    @Test func thePrimaryKeepsTheServerUpToDate() async throws {
        let server = try await FHIRTestServer(options: .init(fail: [1], hang: [3]))
        let primary = try await PrimaryProcess(store: caresync.store, extra: ["--fhir-server", server.url, "--fhir-interval", "0.2"])
        let watch = try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store)
        defer { watch.terminate() }
        try await watch.waitFor("context")
        watch.send("measure heart-rate 71")
        let measured = try #require(try await watch.waitFor("measured").first?["id"] as? String)
        // The server keeps a resource before it records its request's status: wait for both.
        try await waitFor("the Observation on the server, answered", seen: { "\(primary.process.output.suffix(5))" }) {
            server.resources("Observation").count == 1 && server.requests.last { $0.method == "POST" }?.status != nil
        }
        #expect(value(server.resources("Observation").first as Any, "identifier", 0, "value") as? String == measured)
        #expect(server.resources("Patient").count == 1 && server.resources("Device").count == 1)
        // The first post failed (503) and was tried again; the earlier days' measurements stayed home.
        #expect(server.requests.filter { $0.method == "POST" }.prefix(2).map(\.status) == [503, 200])
        let event = try #require(await primary.process.waitForLine { $0.contains("\"event\":\"fhir\"") })
        #expect(event.contains("\"observations\":1"), "\(event)")

        // The next post hangs: the watch's completion is answered all the same.
        watch.send("measure heart-rate 72")
        try await waitFor("a POST held by the server", seen: { "\(server.requests.count) requests" }) {
            server.requests.count { $0.method == "POST" && $0.status == nil } == 1
        }
        watch.send("complete golden-apple 0")
        let reply = try await watch.waitFor("reply")
        #expect(reply.first?["status"] as? String == "accepted")
    }

    /// A server that wants a bearer token gets it from a file or the environment, and one
    /// refused is a clear error that does not show it.
    @Test func aBearerTokenFromAFileOrTheEnvironmentIsSentAndNeverShown() async throws {
        let secret = "s3cr3t-\(UUID().uuidString)"
        let server = try await FHIRTestServer(options: .init(token: secret))
        let refused = try await caresync.run("fhir", "observations", "--server", server.url, "--since", "2026-11-01")
        #expect(refused.status == 1 && refused.stderr.contains("refused the export (HTTP 401): the test server needs its bearer token"), "\(refused.stderr)")
        let file = scratch.path("token")
        try "\(secret)\n".write(toFile: file, atomically: true, encoding: .utf8)
        let sent = try await caresync.run(
            "fhir", "observations", "--server", server.url, "--since", "2026-11-01", "--token-file", file, "--log-level", "debug")
        #expect(sent.status == 0 && sent.lines.last?.hasPrefix("6 Observations, 6 created") == true, "\(sent.stdout)\(sent.stderr)")
        #expect(!(sent.stdout + sent.stderr).contains(secret))
        let wrong = scratch.path("wrong")
        try "not-it".write(toFile: wrong, atomically: true, encoding: .utf8)
        let again = try await CareSyncCommand.run(
            executable: CareSyncCommand.executable, ["fhir", "observations", "--server", server.url, "--since", "2026-11-01", "--store", caresync.store],
            environment: ["CARESYNC_FHIR_TOKEN": secret])
        #expect(again.status == 0 && again.lines.last?.hasPrefix("6 Observations, 0 created, 6 already there") == true, "\(again.stdout)\(again.stderr)")
        let refusedAgain = try await caresync.run("fhir", "observations", "--server", server.url, "--since", "2026-11-01", "--token-file", wrong)
        #expect(refusedAgain.status == 1 && refusedAgain.stderr.contains("HTTP 401") && !refusedAgain.stderr.contains("not-it"))
        let missing = try await caresync.run("fhir", "observations", "--server", server.url, "--token-file", scratch.path("none"))
        #expect(missing.status == 1 && missing.stderr.contains("no bearer token can be read from"), "\(missing.stderr)")
        #expect(server.resources("Observation").count == 6)
    }

    @Test func aPlanWithoutAPatientIsRefusedWithItsReason() async throws {
        let bare = CareSyncCommand(store: scratch.path("bare.sqlite"))
        _ = try await bare.run("plan", "load", CareSyncCommand.example("minimal-plan.json"))
        let refused = try await bare.run("fhir", "observations")
        #expect(refused.status == 1 && refused.stderr.contains("the plan names no patient"), "\(refused.stderr)")
    }
}
