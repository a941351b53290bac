import PolicyRuntime
import PolicyJOSE

/// The middle of `values` (the upper middle of an even count): what a benchmark quotes of runs
/// taken in turn on a machine whose speed drifts.
func median(_ values: [Double]) -> Double {
    values.sorted()[values.count / 2]
}

/// Runs `body` repeatedly for about `seconds` and returns operations per second.
///
/// The loop checks the clock every `batch` calls, so clock reads do not dominate fast bodies.
func measureRate(seconds: Double = 1.5, batch: Int = 64, _ body: () -> Void) -> Double {
    for _ in 0..<batch { body() }
    let clock = ContinuousClock()
    let start = clock.now
    let budget = Duration.milliseconds(Int64(seconds * 1000))
    var operations = 0
    while clock.now - start < budget {
        for _ in 0..<batch { body() }
        operations += batch
    }
    return Double(operations) / (clock.now - start).seconds
}

/// Keeps a value alive and observable so the optimizer cannot delete the work that made it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
