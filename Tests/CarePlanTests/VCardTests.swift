import CarePlan
import Testing

/// Contacts to vCard 4.0 and back, and cards as address books write them.
struct VCardTests {
    static let ruiz = try! Contact(
        identifier: "dr-ruiz", kind: .careTeam, givenName: "Maria", familyName: "Ruiz", title: "Zombie Specialist; Ward 3, East",
        relation: "Physician", phone: "+43 1 555 0100", messagingNumber: "+43 660 555 0100", email: "maria.ruiz@example.org")
    static let rick = try! Contact(identifier: "rick", kind: .personal, givenName: "Rick", familyName: "Grimes", relation: "Brother")

    @Test func writtenAndReadBackTheSame() throws {
        let text = VCard.write([Self.ruiz, Self.rick])
        #expect(text.hasPrefix("BEGIN:VCARD\r\nVERSION:4.0\r\nUID:dr-ruiz\r\nFN:Maria Ruiz\r\nN:Ruiz;Maria;;;\r\n"))
        // Commas and semicolons in a value are escaped; telephone numbers are tel: URIs.
        #expect(text.contains("TITLE:Zombie Specialist\\; Ward 3\\, East\r\n"))
        #expect(text.contains("TEL;TYPE=voice;VALUE=uri:tel:+43-1-555-0100\r\n"))
        #expect(text.components(separatedBy: "BEGIN:VCARD").count == 3)
        #expect(try VCard.read(text) == [Self.ruiz, Self.rick])
    }

    @Test func longLinesAreFoldedAtSeventyFiveOctetsAndUnfolded() throws {
        let long = try Contact(identifier: "long", kind: .personal, givenName: "Ödön", title: String(repeating: "Überärztin ", count: 12))
        let text = VCard.write([long])
        for line in text.components(separatedBy: "\r\n") { #expect(line.utf8.count <= 75, "\(line)") }
        #expect(text.contains("\r\n "))
        #expect(try VCard.read(text) == [long])
    }

    @Test func aVersionThreeCardFromAnAddressBook() throws {
        let card = """
            BEGIN:VCARD
            VERSION:3.0
            item1.FN:Anna Berger
            N:Berger;Anna;;;
            TEL;TYPE=CELL:+43 660 123 4567
            TEL;TYPE=HOME,VOICE:+43 1 234 5678
            EMAIL;TYPE=INTERNET:anna@example.org
            ROLE:Neighbour
            NOTE:Has a key\\, and a dog
            PHOTO;ENCODING=b;TYPE=JPEG:MIICajCCAdOgAwIBAgICBEUwDQYJKoZIhvcNAQEEBQAwdzELMAkGA1UEBhMCVVMxLDAqBgNVBAoTI05l
             dHNjYXBlIENvbW11bmljYXRpb25zIENvcnBvcmF0aW9u
            END:VCARD
            BEGIN:VCARD
            VERSION:4.0
            UID:urn:uuid:4fbe8971-0bc3-424c-9c26-36c3e1eff6b1
            FN:Dr. Ahmed
            END:VCARD
            """
        let contacts = try VCard.read(card, kind: .careTeam)
        #expect(contacts.map(\.identifier) == ["anna-berger", "4fbe8971-0bc3-424c-9c26-36c3e1eff6b1"])
        let anna = contacts[0]
        #expect(anna.fullName == "Anna Berger" && anna.relation == "Neighbour" && anna.kind == .careTeam)
        #expect(anna.phone == "+43 1 234 5678" && anna.messagingNumber == "+43 660 123 4567" && anna.email == "anna@example.org")
        // Only a formatted name: its last word is the family name.
        #expect(contacts[1].givenName == "Dr." && contacts[1].familyName == "Ahmed")
    }

    static let broken: [(text: String, error: String)] = [
        ("BEGIN:VCARD\nVERSION:4.0\nFN:A\n", "line 1: a card without END:VCARD"),
        ("VERSION:4.0\n", "line 1: VERSION outside BEGIN:VCARD … END:VCARD"),
        ("BEGIN:VCARD\nVERSION:4.0\nEND:VCARD\n", "line 1: a card without a name (FN or N)"),
        ("BEGIN:VCARD\nFN:A\nEMAIL:nobody\nEND:VCARD\n", #"the card at line 1: invalid email address "nobody""#),
        ("BEGIN:VCARD\nFN:A\nEND:VCARD\nBEGIN:VCARD\nFN A\nEND:VCARD\n", #"line 5: no ":" in "FN A""#),
        ("BEGIN:VCARD\nFN:A\nBEGIN:VCARD\n", "line 3: BEGIN:VCARD inside a card that has not ended"),
    ]

    @Test(arguments: broken)
    func aBrokenFileSaysWhereAndWhy(text: String, error: String) {
        #expect(Self.message(text) == error)
    }

    static func message(_ text: String) -> String? {
        do { _ = try VCard.read(text) } catch { return error.description }
        return nil
    }
}
