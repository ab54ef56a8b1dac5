import FHIRTestServer
import Foundation
import Testing

/// SMART App Launch as a person does it, in headless Chromium against a real primary: the
/// care app → Connect → the health record's login and consent pages → back in the care app,
/// connected as patient P1, P1's medications imported; then a watch's measurement reaches the
/// record as an Observation whose subject is P1. The screenshots go to `.build/renders`
/// (`scripts/renders` copies them into Docs/).
struct HealthRecordBrowserTests {
    let scratch = Scratch()

    @Test func aPatientConnectsTheirRecordInTheCareAppAndTheWatchsMeasurementsFollow() async throws {
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store, extra: ["--web", "--web-port", "0", "--fhir-interval", "0.2"])
        let web = try #require(await primary.process.waitForLine { $0.contains("\"web\"") }.flatMap(WatchProcess.object))
        let url = try #require(web["url"] as? String), code = try #require(web["signInCode"] as? String)
        var options = FHIRTestServer.Options()
        options.launch = SMARTLaunchRegistration(
            clientID: "caresync", redirectURIs: [try #require(web["healthRecordRedirectURI"] as? String)],
            users: ["pat": (password: "secret", patient: "P1")])
        let orders = CareSyncCommand.repository.appendingPathComponent("Tests/Fixtures/fhir/health-record-orders.json").path
        let server = try await FHIRTestServer(loading: [orders], options: options)
        let watch = try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store)
        defer { watch.terminate() }

        let testServerHeader = "#1d4e89", accent = "#0a4f96"
        try await WebAppTests.withBrowser { browser in
            try await WebAppTests.signIn(browser, at: url, code: code)
            try await browser.open(url + "health-record")
            _ = try await browser.wait(for: "#connect-form")
            try await browser.type(server.base, into: "#server")
            try WebAppTests.save(try await browser.screenshot(), as: "health-record-connect")
            try await browser.click("#connect")

            // The record's own pages: sign in, then allow what CareSync asks for.
            _ = try await browser.wait(for: "#username")
            try await browser.type("pat", into: "#username")
            try await browser.type("secret", into: "#password")
            try await browser.click("#sign-in")
            _ = try await browser.wait(for: "#allow")
            #expect(try await browser.text("#scopes")?.contains("patient/Observation.c") == true)
            let consent = try await browser.screenshot()
            try WebAppTests.save(consent, as: "health-record-consent")
            try await browser.click("#allow")

            // Back in the care app (one same-site hop brings the session cookie along).
            _ = try await browser.wait(for: "#granted-scopes")
            #expect(try await browser.text("#patient") == "Patient: P1")
            #expect(try await browser.text(".notice")?.contains("1 medication order read: 1 added") == true)
            #expect(try await browser.text("#sending")?.contains("for patient P1") == true)
            let connected = try await browser.screenshot()
            try WebAppTests.save(connected, as: "health-record-connected")

            // What the screenshots show: the record's page under its blue header; then the
            // care app again, with its notice's accent and none of the record's blue.
            let before = try await browser.pixelCounts(of: consent, colors: [testServerHeader])
            let after = try await browser.pixelCounts(of: connected, colors: [testServerHeader, accent])
            #expect(before[testServerHeader] ?? 0 > 5_000, "\(before)")
            #expect(after[testServerHeader] ?? 0 == 0 && after[accent] ?? 0 > 100, "\(after)")
        }
        let meds = try await caresync.run("meds")
        #expect(meds.stdout.contains("Amoxicillin 250 mg capsule"), "\(meds.stdout)")

        // A measurement on the watch: on the record, as P1's.
        try await watch.waitFor("context")
        watch.send("measure heart-rate 72")
        let measured = try #require(try await watch.waitFor("measured").first?["id"] as? String)
        try await waitFor("the watch's Observation on the record", seen: { "\(primary.process.output.suffix(3))" }) {
            server.resources("Observation").contains { value($0, "identifier", 0, "value") as? String == measured }
        }
        let observation = try #require(server.resources("Observation").first { value($0, "identifier", 0, "value") as? String == measured })
        #expect(value(observation, "subject", "reference") as? String == "Patient/P1")
        #expect(server.resources("Patient").map { $0["id"] as? String } == ["P1"], "the record's patient is named, not created")
        #expect(server.resources("Device").count == 1)
        await primary.stop()
        await server.stop()
    }
}
