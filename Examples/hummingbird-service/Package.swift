// swift-tools-version:6.1
// A Hummingbird service whose routes are guarded by a policy: the example of README's
// "Hummingbird middleware", built by .ci/run so it keeps compiling.
import Foundation
import PackageDescription

/// A path dependency is known by its directory's name: the clone's, whatever it is called.
let engine = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

let package = Package(
    name: "hummingbird-service",
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
    ],
    targets: [
        .executableTarget(
            name: "OrdersService",
            dependencies: [
                .product(name: "PolicyEngineHummingbird", package: engine),
                .product(name: "PolicyEngine", package: engine),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
    ]
)
