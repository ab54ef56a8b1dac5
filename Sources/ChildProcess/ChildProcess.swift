import Foundation
import Synchronization

extension Process {
    /// Starts the process as `run()` does, but with no signal blocked in it.
    ///
    /// A child inherits the signal mask of the thread that starts it, and on Linux every
    /// thread of Dispatch's pools (where tasks run), and every thread they start, blocks
    /// SIGTERM, SIGINT, SIGHUP and most others. A program that does not reset its mask
    /// (Python, `avahi-browse`, Chromium) then never sees `terminate()`: in the test suite,
    /// each stop of an `avahi-browse` waited out its 10 s limit before a SIGKILL, and the
    /// Avahi restart campaign took 46 s instead of 15.
    ///
    /// The starting thread's mask is emptied only while `run()` starts the child (as the main
    /// thread's is all along) and restored after.
    ///
    /// One start at a time in this process: Foundation (on Linux) sees a child end when the
    /// last holder of the child's end of a socket pair closes it, and it closes every other
    /// descriptor in a child from a list made before the spawn. A pair made by another
    /// thread's `run()` in between is inherited by that child, so the first process's end is
    /// seen only when the other child exits: in the test suite, a `caresync history` of a
    /// third of a second was taken for hung after 60 s, waiting on a primary started beside it.
    public func runUnblocked() throws {
        // The lock first: a thread waiting for it keeps its signals blocked.
        try starting.withLock { _ in
            var none = sigset_t()
            var previous = sigset_t()
            sigemptyset(&none)
            pthread_sigmask(SIG_SETMASK, &none, &previous)
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            try run()
        }
    }
}

/// Held while a child is started (``Foundation/Process/runUnblocked()``).
private let starting = Mutex(())
