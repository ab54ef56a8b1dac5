import NIOCore

/// The revision of a context in a frame's payload, read from the protobuf wire format
/// without decoding the context's days and events: what a fleet companion needs of a
/// context, at the cost Mosquitto's clients pay for a message (they read its topic). The
/// companions share the benchmark's two cores with the primary they load; decoding every
/// event of every context would measure them, not the primary.
enum ContextRevision {
    /// `(revision, whole)` for an ApplicationContext (Envelope field 3) or a ContextDelta
    /// (field 16); `nil` for any other message or a payload that does not parse.
    static func read(_ payload: ByteBuffer) -> (revision: Int, whole: Bool)? {
        var reader = WireReader(bytes: payload.readableBytesView)
        guard let (field, wireType) = reader.tag(), wireType == 2, field == 3 || field == 16,
              var body = reader.lengthDelimited()
        else { return nil }
        // ApplicationContext.revision is field 1, ContextDelta.revision field 2; both varints.
        let revisionField = field == 3 ? 1 : 2
        while let (nested, nestedType) = body.tag() {
            if nested == revisionField, nestedType == 0 { return body.varint().map { (Int($0), field == 3) } }
            guard body.skip(wireType: nestedType) else { return nil }
        }
        return (0, field == 3)  // a revision of 0 is not written
    }

    /// Reads protobuf's wire format: tags, varints, length-delimited fields.
    private struct WireReader {
        var bytes: ByteBufferView

        mutating func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while let byte = bytes.popFirst() {
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
                if shift > 63 { return nil }
            }
            return nil
        }

        mutating func tag() -> (field: Int, wireType: Int)? {
            guard !bytes.isEmpty, let key = varint() else { return nil }
            return (Int(key >> 3), Int(key & 7))
        }

        mutating func lengthDelimited() -> WireReader? {
            guard let length = varint(), length <= bytes.count else { return nil }
            let body = bytes.prefix(Int(length))
            bytes = bytes.dropFirst(Int(length))
            return WireReader(bytes: body)
        }

        mutating func skip(wireType: Int) -> Bool {
            switch wireType {
            case 0: return varint() != nil
            case 1: return drop(8)
            case 2: return lengthDelimited() != nil
            case 5: return drop(4)
            default: return false
            }
        }

        private mutating func drop(_ count: Int) -> Bool {
            guard bytes.count >= count else { return false }
            bytes = bytes.dropFirst(count)
            return true
        }
    }
}
