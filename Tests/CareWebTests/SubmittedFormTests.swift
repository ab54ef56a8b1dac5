@testable import CareWeb
import Testing

/// Forms decoded by Hummingbird's URLEncodedFormDecoder keep the app's limits and refusals.
struct SubmittedFormTests {
    static let outcome = "message=ab12&day=2026-11-24&activity=pressure&occurrence=0&state=completed"

    @Test func repeatedValuesAreSentWithBracketsAndKeptInOrder() throws {
        let fields = try SubmittedForm(Self.outcome + "&value%5B%5D=120&value%5B%5D=80").decode(OutcomeForm.Fields.self)
        #expect(fields.values == ["120", "80"])
        #expect(fields.key.activityID == "pressure" && fields.state == .completed)
    }

    @Test func aFieldGivenTwiceWithoutBracketsIsRefused() throws {
        #expect(throws: WebFailure.badForm("the form is not URL-encoded")) {
            try SubmittedForm(Self.outcome + "&value=120&value=80").decode(OutcomeForm.Fields.self)
        }
    }

    @Test func missingAndInvalidFieldsAreRefusedByName() throws {
        #expect(throws: WebFailure.badForm("\"message\" is missing")) {
            try SubmittedForm("day=2026-11-24").decode(OutcomeForm.Fields.self)
        }
        #expect(throws: WebFailure.badForm("\"occurrence\" must be a whole number from 0 to 95, not \"x\"")) {
            try SubmittedForm(Self.outcome.replacingOccurrences(of: "occurrence=0", with: "occurrence=x")).decode(OutcomeForm.Fields.self)
        }
        #expect(throws: WebFailure.badForm("the form is not URL-encoded")) {
            try SubmittedForm("code=%ZZ").decode(SignInForm.self)
        }
    }

    @Test func moreThanSixtyFourFieldsAreRefusedBeforeDecoding() throws {
        #expect(throws: WebFailure.badForm("more than 64 fields")) {
            try SubmittedForm((0..<65).map { "f\($0)=1" }.joined(separator: "&"))
        }
        #expect(try SubmittedForm((0..<64).map { "f\($0)=1" }.joined(separator: "&")).text.hasPrefix("f0=1"))
    }
}
