// swift-tools-version:6.1
import PackageDescription

/// Swift settings shared by every Swift target (DESIGN.md: as jwt-kit 5 uses them).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// The command-line tools' release builds carry the Swift runtime and Foundation inside them.
///
/// A process that loads them as shared libraries spends 5–8 ms before its first line of work
/// binding their symbols (`ld.so`'s lookups were a quarter of the samples of `batch` starting),
/// and every `swift_retain` and `swift_release` of a record goes through the PLT: `check` on one
/// token takes 13–14 ms linked so against 17–21 ms, and `batch` over 200,000 HS256 records 6%
/// less time (Benchmarks/RESULTS.md, "an eleventh step").
/// The module files the sources compile against are the shared toolchain's, whose link lines
/// name Foundation's public libraries only, so the archives those need (CoreFoundation, ICU, the
/// C shims) are named here, in one group since they refer to one another. Debug builds stay
/// dynamic: swift-testing, which the tests link, ships no static library.
let staticSwiftRuntime: [LinkerSetting] = [
    .unsafeFlags([
        "-static-stdlib",
        "-Xlinker", "--start-group",
        "-lFoundation", "-lCoreFoundation", "-lFoundationInternationalization", "-l_FoundationICU",
        "-lFoundationEssentials", "-l_FoundationCShims", "-l_FoundationCollections",
        "-Xlinker", "--end-group",
    ], .when(configuration: .release)),
]

let package = Package(
    name: "policy-engine",
    products: [
        .library(name: "PolicyEngine", targets: ["PolicyEngine"]),
        .executable(name: "policy-run", targets: ["policy-run"]),
        // The HTTP server, its own binary so that `policy-run` does not load SwiftNIO and Hummingbird.
        .executable(name: "policy-serve", targets: ["policy-serve"]),
        // Hummingbird middleware: a policy checked before every route (brings Hummingbird in).
        .library(name: "PolicyEngineHummingbird", targets: ["PolicyEngineHummingbird"]),
        // A replay store in PostgreSQL that several instances share (brings postgres-nio in).
        .library(name: "PolicyReplayPostgres", targets: ["PolicyReplayPostgres"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        // Key-cache events (fetches, failures, stale serving) for the service's own log handler.
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // Test-only: a real HTTP server on 127.0.0.1 for the remote key source tests.
        .package(url: "https://github.com/swhitty/FlyingFox.git", from: "0.27.1"),
        // `policy-serve` (PolicyServer only, never the engine's targets). Hummingbird and
        // SwiftNIO add 2.5 to 4.5 minutes to a first build on 2 cores; its optional traits
        // (swift-configuration, full Foundation) are left off.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Already built for Hummingbird; named for the server's connection cap and request deadline.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // Already built for Hummingbird; named for the server's drain (signals, graceful shutdown).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // The replay store servers share (PolicyReplayPostgres, linked by the server only). Its
        // SwiftNIO, swift-nio-ssl and swift-crypto are built for the server already; postgres-nio
        // itself adds about a minute to a first build on 2 cores.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // BoringSSL (its symbols prefixed, so it links beside OpenSSL) for the signature
        // primitives it verifies fastest here (Benchmarks `primitives`). Built for the server's
        // postgres-nio already; in the engine's targets it adds about 1 to 1.5 minutes to a
        // first build on 2 cores.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // The only importer of the C crypto and compression libraries (BoringSSL's through
        // CBoringSSLVerify): a Swift façade (keys per family, verifiers, signers, key agreement,
        // AEAD, digests, certificates, gzip) whose errors are `CryptoError`. Named PolicyCrypto,
        // not Crypto, so swift-crypto's `Crypto` module never collides with it.
        .target(
            name: "PolicyCrypto",
            dependencies: ["COpenSSL", "CSodium", "CZlib", "CBoringSSLVerify"],
            swiftSettings: swiftSettings
        ),
        // RSA and ECDSA verification with the BoringSSL swift-crypto builds, behind plain
        // pointers: BoringSSL's struct types would collide with OpenSSL's in PolicyCrypto. The
        // `Crypto` product is named for the C library it brings (module CCryptoBoringSSL).
        .target(
            name: "CBoringSSLVerify",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            path: "Sources/CBoringSSLVerify"
        ),
        // libcurl for key documents, loaded with dlopen at the first fetch rather than linked, so
        // that no process pays at start for a library most never use; curl.h from
        // libcurl4-openssl-dev at build time only.
        .target(
            name: "CCurl",
            path: "Sources/CCurl"
        ),
        // The JSON string scan's inner loop in C, sixteen bytes a step with SSE2 (a plain loop
        // elsewhere): Swift's SIMD types reduced a mask lane by lane. And a one-pass scan of
        // common objects (record lines, claims sets) ahead of the Swift cursor. No dependencies.
        .target(
            name: "CJSONScan",
            path: "Sources/CJSONScan"
        ),
        // HighwayHash-64, the keyed hash the token caches place tokens by: 32 bytes a step with
        // AVX2 (checked at run time), a portable loop elsewhere. No dependencies.
        .target(
            name: "CHighwayHash",
            path: "Sources/CHighwayHash"
        ),
        // A prefetch hint for Swift, which has none: the verdict memo readies the index bucket
        // and the entry of a lookup to come. One inline function; no dependencies.
        .target(
            name: "CPrefetch",
            path: "Sources/CPrefetch"
        ),
        // Base64url decoding sixteen characters a step with SSSE3 (checked at run time), for
        // PolicyJOSE's strict decoder, which keeps the tail and every refusal. No dependencies.
        .target(
            name: "CBase64URL",
            path: "Sources/CBase64URL"
        ),
        // JSON and JOSE on the crypto facade: strict JSON (parser, writer, values, indexes),
        // base64url, compact JWS and JWE, JWK and JWK sets, the error type of the engine, text
        // compared by code points. It knows nothing of policies, keys sources or caches.
        .target(
            name: "PolicyJOSE",
            dependencies: ["PolicyCrypto", "CJSONScan", "CBase64URL"],
            swiftSettings: swiftSettings
        ),
        // Arrow's IPC stream format, written without an Arrow library: the FlatBuffers tables of
        // a schema and a record batch, and column builders. For batch verdicts Spark and data
        // tools read without parsing JSON; it depends on nothing.
        .target(
            name: "ArrowIPC",
            swiftSettings: swiftSettings
        ),
        // The runtime: model, loading, compiling, evaluating, keys, batch. Users reach it
        // through PolicyEngine, which re-exports it with the catalog's `Policy.load`.
        .target(
            name: "PolicyRuntime",
            dependencies: [
                "PolicyJOSE", "PolicyCrypto", "CCurl", "CHighwayHash", "CPrefetch", "ArrowIPC",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // RE2 behind a C interface (Debian's libre2-dev): linear-time `pattern` matching.
        .target(
            name: "CRE2",
            path: "Sources/CRE2",
            linkerSettings: [.linkedLibrary("re2")]
        ),
        .target(
            name: "Rules",
            dependencies: ["PolicyJOSE", "PolicyRuntime", "PolicyCrypto", "CRE2"],
            swiftSettings: swiftSettings
        ),
        // What a service imports: the runtime re-exported, and `Policy.load` with the built-in
        // catalog of rules (which stays internal to it).
        .target(
            name: "PolicyEngine",
            dependencies: ["PolicyJOSE", "PolicyRuntime", "Rules"],
            swiftSettings: swiftSettings
        ),
        // The tools of policy authors: `policy-run test` (NAME.test.yaml files, tokens minted
        // with stand-in keys, coverage, JUnit), `diff` over token logs, and `fmt`.
        .target(
            name: "PolicyAuthoring",
            dependencies: ["PolicyEngine", "PolicyJOSE", "PolicyRuntime", "PolicyCrypto", "Rules"],
            swiftSettings: swiftSettings
        ),
        // The one HTTP front: a request (forwarded or direct) parsed once into the subject the
        // rules judge and the path routing reads; the bearer credential; 401 vs 403. On
        // swift-http-types alone (no NIO), so the middleware need not link the server.
        .target(
            name: "PolicyHTTP",
            dependencies: [
                "PolicyEngine", "PolicyJOSE", "PolicyRuntime", "Rules",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        // One-time values recorded in PostgreSQL, for servers behind one load balancer: a
        // `ReplayStore` on postgres-nio, kept out of the engine's targets.
        .target(
            name: "PolicyReplayPostgres",
            dependencies: [
                "PolicyRuntime", "PolicyJOSE",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // `policy-run serve`: the engine behind HTTP (check, forward auth, health), on Hummingbird.
        .target(
            name: "PolicyServer",
            dependencies: [
                "PolicyEngine", "PolicyJOSE", "PolicyRuntime", "Rules", "PolicyHTTP", "PolicyReplayPostgres",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // `policy-run play` (run by policy-serve, beside the server): a local page where a policy
        // and a subject are edited side by side, on Hummingbird like the server.
        .target(
            name: "PolicyPlayground",
            dependencies: [
                "PolicyEngine", "PolicyJOSE", "PolicyRuntime", "PolicyCrypto", "Rules", "PolicyAuthoring", "PolicyCommandLine",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PolicyEngineHummingbird",
            dependencies: [
                "PolicyEngine", "PolicyJOSE", "PolicyRuntime", "PolicyHTTP",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // What both command-line tools share: the entry point and its error style, diagnostics.
        .target(
            name: "PolicyCommandLine",
            dependencies: [
                "PolicyEngine", "PolicyJOSE", "PolicyRuntime",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "policy-run",
            dependencies: [
                "PolicyEngine", "PolicyJOSE", "PolicyRuntime", "PolicyCrypto", "Rules", "PolicyAuthoring", "PolicyCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings,
            linkerSettings: staticSwiftRuntime
        ),
        // `policy-run serve` hands over to this binary (PolicyServer behind the command line).
        .executableTarget(
            name: "policy-serve",
            dependencies: [
                "PolicyEngine", "PolicyJOSE", "PolicyRuntime", "PolicyServer", "PolicyCommandLine", "PolicyPlayground",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings,
            linkerSettings: staticSwiftRuntime
        ),
        .executableTarget(
            name: "Benchmarks",
            dependencies: ["PolicyEngine", "PolicyJOSE", "PolicyRuntime", "PolicyCrypto", "Rules", "PolicyAuthoring", "PolicyReplayPostgres", "COpenSSL", "CSodium",
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "Crypto", package: "swift-crypto"), .product(name: "CryptoExtras", package: "swift-crypto")],
            path: "Benchmarks",
            exclude: ["RESULTS.md", "peers", "access-tokens.py", "serve-prelude.sh", "serve-load.sh", "serve-proxy-load.sh", "serve-soak.sh", "dpop-load.sh", "spark-warm.py", "report-render.py"],
            swiftSettings: swiftSettings
        ),
        // Every surface that reads untrusted bytes as a function of one input: driven by libFuzzer
        // (Fuzz/run.sh) and replayed over the committed corpora by the test suite.
        .target(
            name: "FuzzTargets",
            dependencies: ["PolicyEngine", "PolicyJOSE", "PolicyRuntime", "Rules"],
            path: "Fuzz/FuzzTargets",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "PolicyFuzz",
            dependencies: ["FuzzTargets"],
            path: "Fuzz/PolicyFuzz",
            swiftSettings: swiftSettings
        ),
        // Test-only: a real HTTP server on 127.0.0.1 that counts requests, for remote key sources,
        // and a raw TCP client for the requests URLSession will not send.
        .target(
            name: "KeyServer",
            dependencies: [
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
            ],
            path: "Tests/KeyServer",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PolicyEngineTests",
            dependencies: [
                "PolicyEngine", "PolicyJOSE", "PolicyRuntime", "PolicyCrypto", "Rules", "KeyServer", "CCurl",
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Vectors")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RulesTests",
            dependencies: [
                "Rules", "PolicyEngine", "PolicyJOSE", "PolicyRuntime", "PolicyCrypto", "KeyServer",
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Keys", "Golden"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PolicyServerTests",
            dependencies: ["PolicyServer", "PolicyHTTP", "PolicyReplayPostgres", "PolicyEngine", "PolicyJOSE", "PolicyRuntime", "Rules", "KeyServer", .product(name: "FlyingFox", package: "FlyingFox")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PolicyHTTPTests",
            dependencies: ["PolicyHTTP", "PolicyAuthoring", "PolicyEngine", "PolicyJOSE", "PolicyRuntime", "Rules", .product(name: "HTTPTypes", package: "swift-http-types")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PolicyEngineHummingbirdTests",
            dependencies: [
                "PolicyEngineHummingbird", "PolicyEngine", "PolicyJOSE", "PolicyRuntime", "Rules", "KeyServer",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PolicyPlaygroundTests",
            dependencies: ["PolicyPlayground", "PolicyAuthoring", "PolicyEngine", "PolicyJOSE", "PolicyRuntime", "Rules",
                           .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HTTPTypes", package: "swift-http-types")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PolicyAuthoringTests",
            dependencies: ["PolicyAuthoring", "PolicyEngine", "PolicyJOSE", "PolicyRuntime", "Rules"],
            swiftSettings: swiftSettings
        ),
        // README.md's and docs/'s Swift blocks, compiled in async and synchronous functions.
        .testTarget(
            name: "DocumentationSnippetTests",
            dependencies: ["PolicyEngine", "PolicyEngineHummingbird", .product(name: "Hummingbird", package: "hummingbird")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FuzzReplayTests",
            dependencies: ["FuzzTargets"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "policy-runTests",
            dependencies: ["policy-run", "policy-serve", "PolicyEngine", "PolicyJOSE", "PolicyRuntime", "KeyServer"],
            swiftSettings: swiftSettings
        ),
    ],
    cxxLanguageStandard: .cxx17
)
