import ArgumentParser
import Foundation

/// `--color auto|always|never`: whether standard output gets ANSI colour.
struct ColourOption: ParsableArguments {
    enum Choice: String, ExpressibleByArgument, CaseIterable {
        case auto, always, never
    }

    @Option(name: .customLong("color"), help: "Colour: auto (on a terminal, unless NO_COLOR is set or TERM=dumb), always or never.")
    var choice: Choice = .auto

    /// Whether to colour what goes to standard output.
    var enabled: Bool {
        switch choice {
        case .always: true
        case .never: false
        case .auto: TerminalColour.enabled
        }
    }
}
