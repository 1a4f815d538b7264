public import Hummingbird
public import HummingbirdCore
public import Logging
public import NIOCore

/// Builds the kiosk's Hummingbird application: the respondent's pages over a ``KioskBackend``.
///
/// | route | what it does |
/// |---|---|
/// | `GET /` (`?lang=ko\|en`) | welcome screen: title, language choice, Start |
/// | `POST /start` | starts a session, then `/question` |
/// | `GET /question` | the current question (or "one moment" while a stage is delivered) |
/// | `POST /answer` | answers it, then `/question` (next, or the same one with the rule's text) or `/end` |
/// | `POST /skip`, `POST /back` | skips an optional question; goes back one question |
/// | `GET /end` | the end screen of the session that just ended |
/// | `POST /reset` | abandons the session (the idle countdown ran out), then `/` |
/// | `POST /alive` | the page's script says the respondent is still active (204) |
/// | `GET /assets/…` | the style sheets and the scripts (the pages' and the on-screen keyboard's) |
/// | `GET /brand/…` | the brand's logo and accent style sheet, when set |
/// | `GET /staff`, `POST /staff/…` | the staff screen behind its PIN (with a staff backend) |
/// | `GET /state` | the kiosk's state as the welcome screen's script compares it (with a staff backend) |
///
/// Every POST needs the browser's cookie and the session's CSRF token (403 otherwise) and a
/// strict `application/x-www-form-urlencoded` body (400, 413 or 415 otherwise).
public enum KioskApplication {
    /// The router of the pages. The settings are checked first.
    /// - Parameters:
    ///   - brand: the logo and accent colour; the caller may replace them while the pages run.
    ///   - now: the clock of the expiries (the tests move it).
    public static func router(
        backend: any KioskBackend,
        settings: KioskSettings,
        brand: KioskBrandStore = KioskBrandStore(),
        staff: (any KioskStaffBackend)? = nil,
        logger: Logger,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) throws -> Router<BasicRequestContext> {
        try settings.check()
        let assets = KioskAssets()
        let renderer = try KioskRenderer(settings: settings, assets: assets, brand: brand)
        let pages = KioskPages(
            backend: backend, settings: settings, renderer: renderer,
            bindings: BrowserBindings(settings: settings, now: now), logger: logger,
            staff: staff, staffSessions: StaffSessions(now: now)
        )
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: KioskHeadersMiddleware(renderer: renderer, language: settings.defaultLanguage, logger: logger))
        router.get("/") { request, _ in await pages.welcome(request) }
        router.post("/start") { request, _ in await pages.start(request) }
        router.get("/question") { request, _ in await pages.question(request) }
        router.post("/answer") { request, _ in await pages.answer(request, skip: false) }
        router.post("/skip") { request, _ in await pages.answer(request, skip: true) }
        router.post("/back") { request, _ in await pages.back(request) }
        router.get("/end") { request, _ in await pages.end(request) }
        router.post("/reset") { request, _ in await pages.reset(request) }
        router.post("/alive") { request, _ in await pages.alive(request) }
        if staff != nil {
            router.get("/state") { request, _ in await pages.state(request) }
            router.get("/staff") { request, _ in await pages.staffScreen(request) }
            router.post("/staff/pin") { request, _ in await pages.staffPin(request) }
            router.post("/staff/send") { request, _ in await pages.staffAction(request, .send) }
            router.post("/staff/out-of-service") { request, _ in await pages.staffAction(request, .outOfService) }
            router.post("/staff/in-service") { request, _ in await pages.staffAction(request, .inService) }
            router.post("/staff/survey") { request, _ in await pages.staffAction(request, .survey) }
            router.post("/staff/done") { request, _ in await pages.staffDone(request) }
        }
        for asset in assets.all {
            router.get(RouterPath(asset.path)) { request, _ in KioskPages.serve(asset, request) }
        }
        router.get("/brand/:file") { request, _ in
            guard let asset = brand.current.asset(at: request.uri.path) else { throw HTTPError(.notFound) }
            return KioskPages.serve(asset, request)
        }
        return router
    }

    /// The application serving the pages on `address`. It is a `Service`: the daemon runs it in
    /// its `ServiceGroup`. It sends no `Server` header.
    public static func application(
        backend: any KioskBackend,
        settings: KioskSettings,
        brand: KioskBrandStore = KioskBrandStore(),
        staff: (any KioskStaffBackend)? = nil,
        address: BindAddress,
        logger: Logger,
        server: HTTPServerBuilder = .http1(),
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let router = try router(backend: backend, settings: settings, brand: brand, staff: staff, logger: logger)
        return Application(
            router: router,
            server: server,
            configuration: .init(address: address, serverName: nil),
            onServerRunning: onServerRunning,
            logger: logger
        )
    }

    /// The name of the browser's cookie.
    public static let cookieName = "kiosk"
}
