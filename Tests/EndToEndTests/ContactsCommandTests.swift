import Foundation
import Testing

/// `caresync contacts`: list, add, edit, remove, and vCard export and import, as a person
/// would use them on the example plan.
struct ContactsCommandTests {
    let scratch = Scratch()
    let caresync: CareSyncCommand

    init() async throws {
        caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        let load = try await caresync.run("plan", "load", CareSyncCommand.example("zombiecare-plan.json"))
        guard load.status == 0 else { throw CommandFailed(result: load) }
    }

    @Test func addEditRemoveAndTheirHistory() async throws {
        let added = try await caresync.run(
            "contacts", "add", "nurse-joy", "--given", "Joy", "--family", "O'Brien", "--kind", "careTeam", "--phone", "+43 1 555 0200",
            "--email", "joy@example.org")
        #expect(added.lines == ["Added nurse-joy  [JO] Joy O'Brien · careTeam · +43 1 555 0200 · joy@example.org"])
        #expect(try await caresync.run("contacts", "add", "nurse-joy", "--given", "X").stderr.contains("there is a contact \"nurse-joy\" already"))
        let edited = try await caresync.run("contacts", "edit", "nurse-joy", "--relation", "Nurse", "--email", "")
        #expect(edited.lines == ["Changed nurse-joy  [JO] Joy O'Brien, Nurse · careTeam · +43 1 555 0200"])
        #expect(try await caresync.run("contacts").lines.map { $0.components(separatedBy: "  ").first! } == ["dr-ruiz", "rick", "nurse-joy"])
        // Reloading the plan document keeps a contact added by hand.
        #expect(try await caresync.run("plan", "load", CareSyncCommand.example("zombiecare-plan.json")).status == 0)
        #expect(try await caresync.run("contacts").lines.count == 3)
        #expect(try await caresync.run("contacts", "remove", "nurse-joy").lines == ["Removed nurse-joy"])
        #expect(try await caresync.run("contacts", "remove", "nurse-joy").status != 0)
        let history = try await caresync.run("history").stdout
        #expect(history.contains("nurse-joy"))
    }

    @Test func vCardsOutAndBackIn() async throws {
        let file = scratch.path("contacts.vcf")
        #expect(try await caresync.run("contacts", "export", "--out", file).status == 0)
        let cards = try String(contentsOfFile: file, encoding: .utf8)
        #expect(cards.hasPrefix("BEGIN:VCARD\r\nVERSION:4.0\r\nUID:dr-ruiz\r\n"))
        #expect(cards.components(separatedBy: "END:VCARD\r\n").count == 3)
        // Into a second store: the same contacts.
        let other = CareSyncCommand(store: scratch.path("other.sqlite"))
        #expect(try await other.run("init", "--title", "Other", "--time-zone", "Europe/Vienna").status == 0)
        let imported = try await other.run("contacts", "import", file)
        #expect(imported.lines.map { $0.components(separatedBy: "  ").first! } == ["Saved dr-ruiz", "Saved rick"])
        #expect(try await other.run("contacts", "--json").stdout == (try await caresync.run("contacts", "--json").stdout))
        // Again: nothing changes.
        #expect(try await other.run("contacts", "import", file).lines.allSatisfy { $0.hasPrefix("Unchanged ") })
        // A broken file changes nothing and says where.
        try "BEGIN:VCARD\nFN:A\nEMAIL:nobody\nEND:VCARD\n".write(toFile: scratch.path("bad.vcf"), atomically: true, encoding: .utf8)
        let bad = try await other.run("contacts", "import", scratch.path("bad.vcf"))
        #expect(bad.status != 0 && bad.stderr.contains("bad.vcf: the card at line 1: invalid email address \"nobody\""))
    }
}
