import ArgumentParser
import CareFHIR
import CarePlanStore
import CareReport
import Foundation
import LineOutput

/// Runs a command body; a refusal becomes one line on stderr and exit status 1.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ExitCode {
        throw error
    } catch {
        LineOutput.standardError.write(text: "caresync: \(error)" + (nextStep(after: error).map { ": \($0)" } ?? ""))
        throw ExitCode.failure
    }
}

/// What to do next after `error`, in this program's commands: the libraries say only what
/// happened.
func nextStep(after error: any Error) -> String? {
    switch error {
    case CarePlanStoreError.planNotConfigured: "run `caresync init` or `caresync plan load FILE`"
    case is StoreNotFound: "make one with `caresync init` or `caresync plan load FILE`, or give --store an existing one"
    case CarePlanStoreError.unknownDevice, CarePlanStoreError.unknownWebSession: "`caresync devices` lists them"
    case ReportError.noEmail(let contact): "add one with `caresync contacts edit \(contact) --email …`"
    case FHIRExportError.noToken(let why) where why.contains("P-384"): "make one with `caresync fhir smart-key --out FILE`"
    default: nil
    }
}

/// A request the command line itself refuses, such as a value that does not parse.
struct UsageError: Error, CustomStringConvertible {
    var description: String
}
