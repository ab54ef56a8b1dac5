import ArgumentParser

/// `caresync fhir …`: medication orders in and doses out as FHIR.
struct FHIRCommand: AsyncParsableCommand {
    /// The subcommands, one file each: add a command here to extend the group.
    static let subcommands: [any ParsableCommand.Type] = [
        FHIRImportCommand.self, FHIRExportCommand.self, FHIRObservationsCommand.self, FHIRSMARTKeyCommand.self,
        FHIRConnectCommand.self, FHIRStatusCommand.self, FHIRDisconnectCommand.self,
    ]

    static let configuration = CommandConfiguration(
        commandName: "fhir", abstract: "Exchange medication orders, doses and measurements with FHIR (JSON).",
        subcommands: subcommands)
}
