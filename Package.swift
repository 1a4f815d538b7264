// swift-tools-version:6.2
// surveyd: an offline-first survey agent. One root package: libraries in Modules/,
// executables in Apps/, tests, test helpers and benchmarks in Tests/.

import PackageDescription

/// Applied to every target: Swift 6 language mode (complete strict concurrency), `any` spelled out,
/// imports internal unless written `public import` (so a module's public API shows only the types of
/// the modules it publicly imports), and members used only from modules a file imports.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "surveyd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "surveyd", targets: ["surveyd"]),
        .executable(name: "surveyctl", targets: ["surveyctl"]),
        .executable(name: "mock-survey-server", targets: ["mock-survey-server"]),
        .library(name: "Entities", targets: ["Entities"]),
        .library(name: "Validation", targets: ["Validation"]),
        .library(name: "Networking", targets: ["Networking"]),
        .library(name: "Storage", targets: ["Storage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // Only to tell a TLS certificate for another name (an intercepting network) from other failures.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // Only the JSON file provider is used (the default trait); flags come from swift-argument-parser.
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: ["JSON"]),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        // The daemon's metrics: recorded through swift-metrics, exposed in the Prometheus text format.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // The journal's encryption at rest: HKDF and ChaCha20-Poly1305. Pinned: BoringAEAD declares
        // functions of its BoringSSL copy, which a test checks against this version's header.
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        // The tests' and benchmarks' child processes (not linked into an app).
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
    ],
    targets: [
        // MARK: Core modules
        .target(name: "Entities", path: "Modules/Entities", swiftSettings: swiftSettings),
        .target(name: "Validation", dependencies: ["Entities"], path: "Modules/Validation", swiftSettings: swiftSettings),
        /// Allocator calls Glibc's Swift module does not export (malloc_trim), for Storage.
        .target(name: "SystemMemory", path: "Modules/SystemMemory"),
        /// A timerfd the kernel cancels when the wall clock is set (flags Glibc's Swift module lacks), for SurveyDaemon.
        .target(name: "WallClockTimer", path: "Modules/WallClockTimer"),
        /// BoringSSL's AEAD on caller-owned buffers, from the copy swift-crypto links in (Linux), for Storage.
        .target(name: "BoringAEAD", path: "Modules/BoringAEAD"),
        /// The processor's CRC32C instruction, for the journal's frame checks in Storage.
        .target(name: "CRC32CInstruction", path: "Modules/CRC32CInstruction"),
        /// The append-only journal, the submission queue on it, the definition cache.
        .target(
            name: "Storage",
            dependencies: [
                "SystemMemory",
                "BoringAEAD",
                "CRC32CInstruction",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Modules/Storage",
            swiftSettings: swiftSettings
        ),
        /// The survey server client: transport seam, connectivity check, retry policy, classification.
        .target(
            name: "Networking",
            dependencies: [
                "Entities",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Modules/Networking",
            swiftSettings: swiftSettings
        ),
        /// The mock survey server's logic, embeddable by the daemon's demo mode.
        .target(
            name: "MockServer",
            dependencies: [
                "Entities",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Modules/MockServer",
            swiftSettings: swiftSettings
        ),

        // MARK: Daemon logic
        .target(
            name: "ControlAPI",
            dependencies: [
                "Entities",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // The staff PIN's hash (PBKDF2), shared by surveyctl and the daemon.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Modules/ControlAPI",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SurveyDaemon",
            dependencies: [
                "Entities", "Validation", "ControlAPI", "Storage", "Networking", "Kiosk", "WallClockTimer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Modules/SurveyDaemon",
            swiftSettings: swiftSettings
        ),

        /// `surveyd --demo`: the daemon against the mock survey server in one process.
        .target(
            name: "SurveyDemo",
            dependencies: ["SurveyDaemon", "MockServer", .product(name: "Logging", package: "swift-log")],
            path: "Modules/SurveyDemo",
            swiftSettings: swiftSettings
        ),

        /// The respondent's pages (the kiosk): Hummingbird routes and Mustache templates over a
        /// `KioskBackend`, so that the daemon's session logic plugs in without this module importing it.
        .target(
            name: "Kiosk",
            dependencies: [
                "Entities",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Modules/Kiosk",
            resources: [.embedInCode("Resources")],
            swiftSettings: swiftSettings
        ),

        /// Child processes with a deadline and their output read to the end, for the tests and the benchmarks.
        .target(
            name: "ProcessTesting",
            dependencies: [.product(name: "Subprocess", package: "swift-subprocess")],
            path: "Tests/Support/ProcessTesting",
            swiftSettings: swiftSettings
        ),
        /// Fixture loading and socket helpers shared by the test targets (it re-exports ProcessTesting).
        .target(name: "SurveyTesting", dependencies: ["ControlAPI", "ProcessTesting"], path: "Tests/Support/SurveyTesting", swiftSettings: swiftSettings),

        // MARK: Apps (thin)
        .executableTarget(
            name: "surveyctl",
            dependencies: [
                "Entities", "ControlAPI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Apps/surveyctl",
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "surveyd",
            dependencies: [
                "Entities", "SurveyDaemon", "SurveyDemo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Apps/surveyd",
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "mock-survey-server",
            dependencies: [
                "MockServer",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Apps/mock-survey-server",
            swiftSettings: swiftSettings
        ),

        // MARK: Test helpers and benchmarks (executables that are not products)
        .executableTarget(
            name: "NetworkingBenchmark",
            dependencies: [
                "Networking", "MockServer", "Entities",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/Benchmarks/NetworkingBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FleetSimulation",
            dependencies: ["Networking", "SurveyTesting", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tests/Benchmarks/FleetSimulation",
            swiftSettings: swiftSettings
        ),
        .target(name: "BenchmarkSupport", path: "Tests/Benchmarks/BenchmarkSupport", swiftSettings: swiftSettings),
        .executableTarget(
            name: "StorageBenchmark",
            dependencies: ["BenchmarkSupport", "ProcessTesting", "Storage", .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Logging", package: "swift-log")],
            path: "Tests/Benchmarks/StorageBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "StartupBenchmark",
            dependencies: ["BenchmarkSupport", "ControlAPI", "SurveyTesting", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tests/Benchmarks/StartupBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "DaemonBenchmark",
            dependencies: [
                "BenchmarkSupport", "ControlAPI", "Entities", "Storage", "SurveyTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/Benchmarks/DaemonBenchmark",
            swiftSettings: swiftSettings
        ),
        /// A `KioskBackend` that runs the project's survey from `mock/` in memory, for the kiosk's tests.
        .target(
            name: "KioskTesting",
            dependencies: [
                "Kiosk", "Entities", "Validation", "MockServer", "SurveyTesting",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Tests/Helpers/KioskTesting",
            swiftSettings: swiftSettings
        ),
        /// The lifecycle walker: seeded walks of real surveyd processes checked against a model.
        .target(name: "LifecycleWalking", dependencies: ["SurveyTesting"], path: "Tests/Lifecycle/LifecycleWalking", swiftSettings: swiftSettings),
        .executableTarget(
            name: "LifecycleWalk",
            dependencies: ["LifecycleWalking", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tests/Lifecycle/LifecycleWalk",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "JournalCrashHelper",
            dependencies: ["Storage", .product(name: "Logging", package: "swift-log")],
            path: "Tests/Helpers/JournalCrashHelper",
            swiftSettings: swiftSettings
        ),

        // MARK: Tests, one target per module plus end-to-end
        .testTarget(name: "StorageTests", dependencies: ["Storage", "SurveyTesting", "JournalCrashHelper", .product(name: "Crypto", package: "swift-crypto"), .product(name: "Logging", package: "swift-log")], path: "Tests/StorageTests", swiftSettings: swiftSettings),
        .testTarget(name: "EntitiesTests", dependencies: ["Entities", "SurveyTesting"], path: "Tests/EntitiesTests", swiftSettings: swiftSettings),
        .testTarget(name: "ValidationTests", dependencies: ["Validation", "SurveyTesting"], path: "Tests/ValidationTests", swiftSettings: swiftSettings),
        .testTarget(
            name: "SurveyDaemonTests",
            dependencies: [
                "SurveyDaemon", "Storage", "Networking", "MockServer", "SurveyTesting", "Kiosk", "KioskTesting", "WallClockTimer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/SurveyDaemonTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "NetworkingTests", dependencies: ["Networking", "MockServer", "SurveyTesting", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl")], path: "Tests/NetworkingTests", swiftSettings: swiftSettings),
        .testTarget(name: "MockServerTests", dependencies: ["MockServer", "SurveyTesting", .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "NIOCore", package: "swift-nio")], path: "Tests/MockServerTests", swiftSettings: swiftSettings),
        .testTarget(
            name: "KioskTests",
            dependencies: [
                "Kiosk", "KioskTesting", "Entities", "SurveyTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/KioskTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "SurveyDemoTests", dependencies: ["SurveyDemo", "SurveyDaemon", "SurveyTesting"], path: "Tests/SurveyDemoTests", swiftSettings: swiftSettings),
        .testTarget(name: "EndToEndTests", dependencies: ["SurveyTesting", "LifecycleWalking"], path: "Tests/EndToEndTests", swiftSettings: swiftSettings),
    ]
)
