internal import NIOCore
internal import NIOPosix

extension PolicyServer {
    /// Makes SwiftNIO's event loops Swift concurrency's global executor, for the process.
    ///
    /// A call's handler then runs on the event loop thread that read it instead of hopping to
    /// the cooperative pool and back: two thread switches and a wake-up fewer a call. Must be
    /// called once, first thing in `main`, before any task runs on the global executor.
    ///
    /// - Returns: Whether the event loops took over (false where the runtime cannot hand over).
    public static func runTasksOnEventLoops() -> Bool {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }
}
