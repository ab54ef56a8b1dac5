import CDNSSD
import Dispatch
import Foundation

/// One `DNSServiceRef` with its callbacks driven from the service's socket by a dispatch
/// source, never on a Swift concurrency thread or an event loop. Cancelling deallocates
/// the ref; each ref costs Avahi's compatibility layer a thread and a D-Bus client.
final class DNSServiceOperation: @unchecked Sendable {
    // Guarded by `queue`: the ref and source are touched only there after `start`.
    private var reference: DNSServiceRef?
    private var source: (any DispatchSourceRead)?
    private let queue = DispatchQueue(label: "caresync.dnssd")

    /// Starts an operation: `create` calls the DNSService function with the context
    /// pointer it is given and returns its error code.
    init(_ create: (UnsafeMutablePointer<DNSServiceRef?>) -> DNSServiceErrorType) throws(DiscoveryError) {
        _ = Self.quietCompatibilityWarning
        var ref: DNSServiceRef?
        let error = create(&ref)
        guard error == DNSServiceErrorType(kDNSServiceErr_NoError), let ref else { throw DiscoveryError(code: error) }
        reference = ref
        let source = DispatchSource.makeReadSource(fileDescriptor: DNSServiceRefSockFD(ref), queue: queue)
        source.setEventHandler { [weak self] in
            guard let self, let reference = self.reference else { return }
            if DNSServiceProcessResult(reference) != DNSServiceErrorType(kDNSServiceErr_NoError) { self.cancelOnQueue() }
        }
        self.source = source
        source.resume()
    }

    /// Avahi's compatibility layer prints a warning to stderr unless this is set first.
    private static let quietCompatibilityWarning: Void = {
        setenv("AVAHI_COMPAT_NOWARN", "1", 0)
    }()

    /// Stops the callbacks and deallocates the ref; safe to call more than once.
    func cancel() {
        queue.sync { cancelOnQueue() }
    }

    /// Stops the callbacks and deallocates the ref soon, without waiting, keeping `context`
    /// (the callbacks' box) alive until then: for an `AsyncStream`'s termination handler,
    /// which a cancelled task runs while it holds its own lock, a lock that a callback
    /// yielding to the stream at that moment needs. Waiting there (``cancel()``) deadlocked
    /// a companion looking for its primary.
    func cancelWithoutWaiting(keeping context: any AnyObject & Sendable) {
        queue.async { [self] in
            cancelOnQueue()
            withExtendedLifetime(context) {}
        }
    }

    private func cancelOnQueue() {
        source?.cancel()
        source = nil
        if let reference { DNSServiceRefDeallocate(reference) }
        reference = nil
    }

    deinit {
        source?.cancel()
        if let reference { DNSServiceRefDeallocate(reference) }
    }
}

/// A class box whose address is the context pointer of a C callback.
final class CallbackBox<Handler>: @unchecked Sendable {
    let handler: Handler

    init(_ handler: Handler) {
        self.handler = handler
    }

    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> CallbackBox<Handler> {
        Unmanaged<CallbackBox<Handler>>.fromOpaque(pointer!).takeUnretainedValue()
    }
}
