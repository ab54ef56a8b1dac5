import CareCore
import ArgumentParser
import CarePlan
import CarePlanStore
import Foundation
import LineOutput

extension ContactKind: ExpressibleByArgument {}

/// `caresync contacts`: the care team and personal contacts (CareKit's Connect), kept in the
/// store, synced to companions in their context, and exchanged as vCards.
struct ContactsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contacts", abstract: "The plan's contacts: list, add, edit, remove, and vCard import and export.",
        subcommands: [List.self, Add.self, Edit.self, Remove.self, Import.self, Export.self], defaultSubcommand: List.self)

    /// The fields of a contact that `add` and `edit` take.
    struct Fields: ParsableArguments {
        @Option(help: "careTeam or personal.") var kind: ContactKind?
        @Option(help: "The given name.") var given: String?
        @Option(help: "The family name.") var family: String?
        @Option(help: "A job title, such as \"Family Practice Doctor\".") var title: String?
        @Option(help: "How they relate to the patient, such as \"Mother\".") var relation: String?
        @Option(help: "A phone number.") var phone: String?
        @Option(help: "A number for text messages.") var messaging: String?
        @Option(help: "An email address.") var email: String?

        /// `contact` with the fields given here changed (an empty value clears an optional one).
        func applied(to contact: Contact?, id: String) throws -> Contact {
            func field(_ given: String?, _ current: String?) -> String? {
                guard let given else { return current }
                return given.isEmpty ? nil : given
            }
            guard let givenName = given ?? contact?.givenName else { throw ValidationError("a new contact needs --given NAME") }
            return try Contact(
                identifier: id, kind: kind ?? contact?.kind ?? .personal, givenName: givenName,
                familyName: field(family, contact?.familyName), title: field(title, contact?.title),
                relation: field(relation, contact?.relation), phone: field(phone, contact?.phone),
                messagingNumber: field(messaging, contact?.messagingNumber), email: field(email, contact?.email))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every contact, with how to reach them.")
        @OptionGroup var options: StoreOptions
        @Flag(help: "Print the contacts as a JSON array.") var json = false

        func run() async throws {
            try await reportingFailures {
                let contacts = try await options.open().plan.contacts()
                if json { return try emitJSON(contacts) }
                if contacts.isEmpty { emit("No contacts: add one with `caresync contacts add ID --given NAME`.") }
                for contact in contacts { emit(Self.line(contact)) }
            }
        }

        /// `dr-ruiz  [MR] Maria Ruiz, Physician · careTeam · +43 1 555 0100 · maria.ruiz@example.org`.
        static func line(_ contact: Contact) -> String {
            let reach = [contact.phone, contact.messagingNumber.map { "text \($0)" }, contact.email].compactMap { $0 }
            return "\(contact.identifier)  [\(contact.monogram)] \(contact.fullName)" + (contact.relation.map { ", \($0)" } ?? "")
                + " · \(contact.kind.rawValue)" + reach.map { " · \($0)" }.joined()
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a contact.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The contact's identifier, such as dr-ruiz.") var id: String
        @OptionGroup var fields: Fields

        func run() async throws {
            try await reportingFailures {
                let store = try await options.open()
                guard try await store.plan.contact(id) == nil else {
                    throw ValidationError("there is a contact \"\(id)\" already: change it with `caresync contacts edit \(id)`")
                }
                let contact = try fields.applied(to: nil, id: id)
                try await CareCore(store: store).plan.saveContact(contact, device: options.device)
                emit("Added \(List.line(contact))")
            }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a contact's fields; the others stay (an empty value, --email \"\", clears one).")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The contact's identifier.") var id: String
        @OptionGroup var fields: Fields

        func run() async throws {
            try await reportingFailures {
                let store = try await options.open()
                guard let current = try await store.plan.contact(id) else { throw ValidationError("no contact \"\(id)\"") }
                let contact = try fields.applied(to: current, id: id)
                try await CareCore(store: store).plan.saveContact(contact, device: options.device)
                emit("Changed \(List.line(contact))")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a contact (its past stays in the history).")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The contact's identifier.") var id: String

        func run() async throws {
            try await reportingFailures {
                guard try await CareCore(store: options.open()).plan.removeContact(id, device: options.device) != nil else {
                    throw ValidationError("no contact \"\(id)\"")
                }
                emit("Removed \(id)")
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add or update the contacts of a vCard file (4.0 or 3.0), in one transaction.",
            discussion: "A card's UID is its contact's identifier (else one made from its name), so importing again updates.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The .vcf file.") var file: String
        @Option(help: "The kind of cards that do not say (careTeam or personal).") var kind: ContactKind = .personal

        func run() async throws {
            try await reportingFailures {
                let text: String
                do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
                    throw ValidationError("cannot read \(file): \(error.localizedDescription)")
                }
                let contacts: [Contact]
                do { contacts = try VCard.read(text, kind: kind) } catch { throw ValidationError("\(file): \(error)") }
                let store = try await options.open()
                let changes = try await CareCore(store: store).plan.saveContacts(contacts, device: options.device)
                for (contact, changed) in zip(contacts, changes) { emit("\(changed ? "Saved" : "Unchanged") \(List.line(contact))") }
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write every contact as a vCard 4.0 file (or to standard output).")
        @OptionGroup var options: StoreOptions
        @Option(help: ArgumentHelp("The file to write.", valueName: "file")) var out: String?

        func run() async throws {
            try await reportingFailures {
                let cards = VCard.write(try await options.open().plan.contacts())
                // Lines end in CRLF, as RFC 6350 asks; the last one's LF is the line output's.
                guard let out else { return emitVerbatim(String(cards.dropLast())) }
                do { try Data(cards.utf8).write(to: URL(fileURLWithPath: out), options: .atomic) } catch {
                    throw ValidationError("cannot write \(out): \(error.localizedDescription)")
                }
                emit("Wrote \(out)")
            }
        }
    }
}
