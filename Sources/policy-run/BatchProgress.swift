import Foundation
import PolicyRuntime
import PolicyAuthoring
import PolicyJOSE

/// A one-line progress display on standard error — records, rate, and an ETA when the input's
/// size is known — shown only when standard error is a terminal.
struct BatchProgress {
    let totalBytes: Int?
    var bytesDone = 0
    private let active = isatty(STDERR_FILENO) == 1
    private let started = ContinuousClock.now
    private var lastDrawn = ContinuousClock.now - .seconds(1)

    init(totalBytes: Int?) {
        self.totalBytes = totalBytes
    }

    mutating func update(records: Int, bytes: Int) {
        guard active, ContinuousClock.now - lastDrawn >= .milliseconds(250) else { return }
        lastDrawn = .now
        let elapsed = (ContinuousClock.now - started).seconds
        let rate = elapsed > 0 ? Double(records) / elapsed : 0
        var line = "\r\(Grouped(records)) records  \(Grouped(Int(rate)))/s"
        if let totalBytes, totalBytes > 0, bytes > 0 {
            let share = min(1, Double(bytes) / Double(totalBytes))
            let remaining = share > 0 ? elapsed / share - elapsed : 0
            line += String(format: "  %3d%%  ETA %d:%02d", Int(share * 100), Int(remaining) / 60, Int(remaining) % 60)
        }
        FileHandle.standardError.write(Data((line + "\u{1B}[K").utf8))
    }

    func finish() {
        guard active else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
