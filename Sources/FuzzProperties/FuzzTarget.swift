/// The properties CareSync's parsers keep on any bytes, one target per parser. Two runners
/// share them: libFuzzer (the `Fuzz/` package, `scripts/fuzz`), coverage-guided and under
/// AddressSanitizer, for long runs; and the suite's short mutation run (`FuzzTests`), which
/// needs no build of its own.
///
/// Each target documents its properties and the layout of its input beside its check.
public enum FuzzTarget: String, CaseIterable, Sendable {
    case frame
    case envelope
    case wire
    case planDocument = "plan-document"
    case fhirImport = "fhir-import"
    case pairing

    /// Runs one input; throws the first property it breaks.
    public func check(_ input: [UInt8]) throws(PropertyBroken) {
        switch self {
        case .frame: try checkFrame(input)
        case .envelope: try checkEnvelope(input)
        case .wire: try checkWire(input)
        case .planDocument: try checkPlanDocument(input)
        case .fhirImport: try checkFHIRImport(input)
        case .pairing: try checkPairing(input)
        }
    }
}

/// A property an input broke, and where it is stated.
public struct PropertyBroken: Error, CustomStringConvertible {
    public let message: String
    public let file: StaticString
    public let line: UInt

    public var description: String { "property broken at \(file):\(line): \(message)" }
}

/// The input broke a property.
func fuzzFailure(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> PropertyBroken {
    PropertyBroken(message: message(), file: file, line: line)
}

/// Throws unless `condition` holds.
func require(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) throws(PropertyBroken) {
    if !condition() { throw fuzzFailure(message(), file: file, line: line) }
}
