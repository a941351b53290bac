// swift-tools-version:6.1
// Two programs outside the engine's package, as a service author writes them: a Hummingbird
// service whose routes are guarded by a policy (README's "Hummingbird middleware") and a custom
// rule compiled into a policy (docs/custom-rules.md). Scripts/test.sh builds both and runs the
// second, so what they use stays public.
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
        .executableTarget(
            name: "TenantRule",
            dependencies: [.product(name: "PolicyEngine", package: engine)]
        ),
    ]
)
