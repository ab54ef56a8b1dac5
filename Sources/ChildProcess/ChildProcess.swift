import Foundation

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
    public func runUnblocked() throws {
        var none = sigset_t()
        var previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try run()
    }
}
