import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import Kiosk
import KioskTesting
import Logging
import NIOCore
import Synchronization

/// The kiosk over the project's survey, for one test.
struct KioskFixture {
    let backend: SurveyKioskBackend
    let clock = ManualClock()
    var settings: KioskSettings
    /// The logo and accent colour the pages show; a test may replace them while it runs.
    var brand = KioskBrandStore()
    /// The staff screen's backend; nil: no staff screen.
    var staff: (any KioskStaffBackend)?
    /// Signalled by a test when something the welcome screen shows changed.
    var changes = KioskChanges()

    init(settings: KioskSettings = KioskSettings(titles: [.ko: "음료 설문", .en: "Drinks survey"], defaultLanguage: .ko)) throws {
        backend = try SurveyKioskBackend(definitions: Self.definitions())
        self.settings = settings
    }

    /// Runs `test` against the kiosk's router.
    func run<Value>(_ test: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        let clock = clock
        var logger = Logger(label: "kiosk-tests")
        logger.logLevel = .critical
        let router = try KioskApplication.router(
            backend: backend, settings: settings, brand: brand, staff: staff, changes: changes, logger: logger, now: { clock.now() },
            client: { request, _ in Self.client(of: request) })
        return try await Application(router: router).test(.router, test)
    }

    /// The header that says, in these tests only, which address a request comes from (the
    /// router's test channel has none); without it a request comes from 127.0.0.1.
    static let clientHeader = HTTPField.Name("X-Test-Client")!

    static func client(of request: Request) -> SocketAddress? {
        guard let address = request.headers[clientHeader] else { return try? SocketAddress(ipAddress: "127.0.0.1", port: 50_000) }
        return try? SocketAddress(ipAddress: address, port: 50_000)
    }

    private static let loaded = Mutex<SurveyDefinitions?>(nil)

    /// The survey, loaded once for all tests.
    static func definitions() throws -> SurveyDefinitions {
        if let loaded = loaded.withLock({ $0 }) { return loaded }
        let definitions = try SurveyDefinitions.load()
        loaded.withLock { $0 = definitions }
        return definitions
    }
}
