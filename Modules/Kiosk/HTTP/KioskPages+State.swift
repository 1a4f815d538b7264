#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import NIOCore

/// `GET /state`: what the welcome screen (or the closed / out-of-service screen) shows of the
/// kiosk, as a short text its script compares with the page's own `data-state`.
///
/// With `?shown=S` the request is held (``KioskStateHold``): it answers once the kiosk shows
/// something else than `S` (a ``KioskChanges`` signal, an hours boundary) or after
/// ``KioskSettings/stateHoldSeconds``; without, at once. The script asks again at once after an
/// answer, and after an error with a delay that doubles up to a minute.
extension KioskPages {
    /// The most requests held at once; past that `/state?shown=` answers 503 with `Retry-After`.
    static let maxHeldRequests = 64

    /// What a page shows of the kiosk: whether sessions start (and which survey), whether the
    /// staff screen's way in is on, and the brand's generation (logo, colour, attract images).
    static func fingerprint(_ availability: KioskAvailability, staffHold: Bool, brand generation: Int) -> String {
        "\(availability.fingerprint)|\(staffHold ? "staff" : "-")|\(generation)"
    }

    /// What the kiosk shows now, and its next boundary of the opening hours.
    func shown() async -> KioskStateHold<ContinuousClock>.Shown {
        guard let staff else { return .init(state: "", nextBoundary: nil) }
        let availability = await staff.availability()
        let staffHold = await staff.staffScreenEnabled()
        let state = Self.fingerprint(availability, staffHold: staffHold, brand: renderer.brand.current.generation)
        return .init(state: state, nextBoundary: await staff.nextAvailabilityChange())
    }

    func state(_ request: Request) async -> Response {
        guard let shown = request.uri.queryParameters["shown"].map(String.init) else {
            return stateResponse(await self.shown().state)
        }
        guard changes.waiting < Self.maxHeldRequests else {
            var response = stateResponse("")
            response.status = .serviceUnavailable
            response.headers[.retryAfter] = "30"
            return response
        }
        let hold = KioskStateHold(changes: changes, clock: ContinuousClock(), hold: .seconds(settings.stateHoldSeconds), wallNow: { Date() })
        return stateResponse(await hold.answer(shown: shown) { await self.shown() })
    }

    func stateResponse(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
