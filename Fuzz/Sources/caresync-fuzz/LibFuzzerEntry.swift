import Foundation
import FuzzProperties

/// The target FUZZ_TARGET names (frame, envelope, wire, plan-document, fhir-import, pairing).
private let target: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        fatalError("FUZZ_TARGET=\(name.debugDescription) is not one of \(FuzzTarget.allCases.map(\.rawValue))")
    }
    return target
}()

/// One input from libFuzzer. A broken property aborts: libFuzzer saves the input as a
/// crash, as it does for a trap or a sanitizer's report.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    do {
        try target.check(input)
    } catch {
        fatalError("\(error)")
    }
    return 0
}
