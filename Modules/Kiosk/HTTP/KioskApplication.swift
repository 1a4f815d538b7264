public import Hummingbird
public import HummingbirdCore
public import Logging
public import NIOCore

/// Builds the kiosk's Hummingbird application: the respondent's pages over a ``KioskBackend``.
///
/// | route | what it does |
/// |---|---|
/// | `GET /` (`?lang=ko\|en`) | welcome screen: title, language choice, Start |
/// | `POST /start` | starts a session, then `/question`; with a consent notice, `/consent` first |
/// | `GET /consent` | the consent notice, with "I agree" and "No, thanks" |
/// | `POST /consent` | agrees (starts the session with the notice's version, then `/question`) or declines (`/declined`) |
/// | `GET /declined` | a neutral thank-you after "No, thanks"; nothing of the respondent is kept |
/// | `GET /question` | the current question (or "one moment" while a stage is delivered) |
/// | `POST /answer` | answers it, then `/question` (next, or the same one with the rule's text) or `/end` |
/// | `POST /skip`, `POST /back` | skips an optional question; goes back one question |
/// | `GET /end` | the end screen of the session that just ended |
/// | `POST /reset` | abandons the session (the idle countdown ran out), then `/` |
/// | `POST /alive` | the page's script says the respondent is still active (204) |
/// | `GET /assets/…` | the style sheets and the scripts (the pages' and the on-screen keyboard's) |
/// | `GET /brand/…` | the brand's logo and accent style sheet, when set |
/// | `GET /staff`, `POST /staff/…` | the staff screen behind its PIN (with a staff backend) |
/// | `GET /state` | the kiosk's state as the welcome screen's script compares it; `?shown=S` holds until it differs from `S` (with a staff backend) |
///
/// Every POST needs the browser's cookie and the session's CSRF token (403 otherwise) and a
/// strict `application/x-www-form-urlencoded` body (400, 413 or 415 otherwise). The staff screen
/// answers only the clients ``KioskSettings/staffAccess`` admits (403 with a page saying why
/// otherwise), and its rights go with a cookie of their own, made anew for each right PIN.
public enum KioskApplication {
    /// The router of the pages. The settings are checked first.
    /// - Parameters:
    ///   - brand: the logo and accent colour; the caller may replace them while the pages run.
    ///   - changes: signalled by the caller when something the welcome screen shows changed, so
    ///     that its held `/state` request answers.
    ///   - now: the clock of the expiries (the tests move it).
    ///   - client: the address of the client that sent a request: the connection's peer (the
    ///     tests give others).
    public static func router(
        backend: any KioskBackend,
        settings: KioskSettings,
        brand: KioskBrandStore = KioskBrandStore(),
        staff: (any KioskStaffBackend)? = nil,
        changes: KioskChanges = KioskChanges(),
        logger: Logger,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        client: @escaping @Sendable (Request, KioskRequestContext) -> SocketAddress? = { _, context in context.remoteAddress }
    ) throws -> Router<KioskRequestContext> {
        try settings.check()
        let assets = KioskAssets()
        let renderer = try KioskRenderer(settings: settings, assets: assets, brand: brand)
        let pages = KioskPages(
            backend: backend, settings: settings, renderer: renderer,
            bindings: BrowserBindings(settings: settings, now: now), logger: logger,
            staff: staff, staffSessions: StaffSessions(now: now), changes: changes
        )
        let router = Router(context: KioskRequestContext.self)
        router.add(middleware: KioskHeadersMiddleware(renderer: renderer, language: settings.defaultLanguage, logger: logger))
        router.get("/") { request, _ in await pages.welcome(request) }
        router.post("/start") { request, _ in await pages.start(request) }
        router.get("/consent") { request, _ in await pages.consent(request) }
        router.post("/consent") { request, _ in await pages.answerConsent(request) }
        router.get("/declined") { request, _ in await pages.declined(request) }
        router.get("/question") { request, _ in await pages.question(request) }
        router.post("/answer") { request, _ in await pages.answer(request, skip: false) }
        router.post("/skip") { request, _ in await pages.answer(request, skip: true) }
        router.post("/back") { request, _ in await pages.back(request) }
        router.get("/end") { request, _ in await pages.end(request) }
        router.post("/reset") { request, _ in await pages.reset(request) }
        router.post("/alive") { request, _ in await pages.alive(request) }
        if staff != nil {
            router.get("/state") { request, _ in await pages.state(request) }
            // Each staff route first asks whether the client may use the staff screen at all.
            let access = settings.staffAccess
            let admitted: @Sendable (Request, KioskRequestContext) -> Bool = { request, context in access.admits(client(request, context)) }
            router.get("/staff") { request, context in await pages.staffScreen(request, admitted: admitted(request, context)) }
            router.post("/staff/pin") { request, context in await pages.staffPin(request, admitted: admitted(request, context)) }
            router.post("/staff/send") { request, context in await pages.staffAction(request, .send, admitted: admitted(request, context)) }
            router.post("/staff/out-of-service") { request, context in await pages.staffAction(request, .outOfService, admitted: admitted(request, context)) }
            router.post("/staff/in-service") { request, context in await pages.staffAction(request, .inService, admitted: admitted(request, context)) }
            router.post("/staff/survey") { request, context in await pages.staffAction(request, .survey, admitted: admitted(request, context)) }
            router.post("/staff/done") { request, context in await pages.staffDone(request, admitted: admitted(request, context)) }
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
    /// The name of the cookie that carries staff rights: a token of its own, made when the right
    /// PIN is typed, sent only to `/staff…` (never the respondent's cookie).
    public static let staffCookieName = "kiosk-staff"
}
