#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Faults the mock server injects, set by flags at start or by `POST /admin/faults` at run time.
///
/// Shares are fractions of matching requests (0 ... 1) and are applied deterministically: with a
/// share of 0.25, exactly one request in four is hit (an accumulator, no randomness), so tests and
/// demos are reproducible. Faults apply to `/api/...` routes only, never to `/healthz` or `/admin`.
public struct Faults: Sendable, Codable, Hashable {
    /// Added before every answer, in milliseconds.
    public var latencyMilliseconds: Int = 0
    /// Share answered 503 with `Retry-After: retryAfterSeconds`.
    public var unavailableShare: Double = 0
    public var retryAfterSeconds: Int = 1
    /// Share answered 429 (with `Retry-After`).
    public var tooManyRequestsShare: Double = 0
    /// Share answered 500.
    public var serverErrorShare: Double = 0
    /// Share answered 200 with a body that is not JSON.
    public var malformedShare: Double = 0
    /// Share of answer uploads answered `isSuccess: false` (nothing recorded).
    public var rejectShare: Double = 0
    /// Share of requests whose connection is accepted and never answered.
    public var hangShare: Double = 0
    /// When set, an answer upload without `Authorization: Bearer <requiredToken>` is refused
    /// with 401 (nothing recorded), as a server does after its token was rotated.
    public var requiredToken: String?
    /// When set, every `/api/...` request is answered as a captive portal answers before its
    /// terms are accepted, and nothing reaches the survey server behind it (see ``Portal``).
    public var portal: Portal?
    /// The status of the portal's redirect (`portal: redirect`): 301, 302, 303, 307 or 308.
    public var portalRedirectStatus: Int = 302
    /// Where the portal's redirect points; the mock server's own `/portal/login` when unset.
    public var portalLoginURL: String?
    /// When set, the questionnaire of this stage is served as `200` with an empty body, in every
    /// language (a broken file on the server); every other request is answered as usual.
    public var emptyQuestionnaireStage: String?

    /// The ways a captive portal answers in the survey server's place.
    public enum Portal: String, Sendable, Codable, Hashable, CaseIterable {
        /// `200 text/html`: a login page.
        case html
        /// `200 application/json` with `{}`.
        case json
        /// `200` with an empty body.
        case empty
        /// A redirect (`portalRedirectStatus`) to the login page (`portalLoginURL`).
        case redirect
        /// `511 Network Authentication Required`.
        case status511
        /// `403 text/html`: "Blocked by the network's policy".
        case status403
        /// `404 text/html`: a page of the network's own.
        case status404
    }

    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        latencyMilliseconds = try c.decodeIfPresent(Int.self, forKey: .latencyMilliseconds) ?? 0
        unavailableShare = try c.decodeIfPresent(Double.self, forKey: .unavailableShare) ?? 0
        retryAfterSeconds = try c.decodeIfPresent(Int.self, forKey: .retryAfterSeconds) ?? 1
        tooManyRequestsShare = try c.decodeIfPresent(Double.self, forKey: .tooManyRequestsShare) ?? 0
        serverErrorShare = try c.decodeIfPresent(Double.self, forKey: .serverErrorShare) ?? 0
        malformedShare = try c.decodeIfPresent(Double.self, forKey: .malformedShare) ?? 0
        rejectShare = try c.decodeIfPresent(Double.self, forKey: .rejectShare) ?? 0
        hangShare = try c.decodeIfPresent(Double.self, forKey: .hangShare) ?? 0
        requiredToken = try c.decodeIfPresent(String.self, forKey: .requiredToken)
        portal = try c.decodeIfPresent(Portal.self, forKey: .portal)
        portalRedirectStatus = try c.decodeIfPresent(Int.self, forKey: .portalRedirectStatus) ?? 302
        portalLoginURL = try c.decodeIfPresent(String.self, forKey: .portalLoginURL)
        emptyQuestionnaireStage = try c.decodeIfPresent(String.self, forKey: .emptyQuestionnaireStage)
    }

    /// The shares outside 0 ... 1, named, or nil when all are valid.
    public var problem: String? {
        let shares = [("unavailableShare", unavailableShare), ("tooManyRequestsShare", tooManyRequestsShare), ("serverErrorShare", serverErrorShare), ("malformedShare", malformedShare), ("rejectShare", rejectShare), ("hangShare", hangShare)]
        let bad = shares.filter { !(0 ... 1).contains($0.1) }.map(\.0)
        if !bad.isEmpty { return "shares must be between 0 and 1: \(bad.joined(separator: ", "))" }
        if latencyMilliseconds < 0 || retryAfterSeconds < 0 { return "latencyMilliseconds and retryAfterSeconds must not be negative" }
        if ![301, 302, 303, 307, 308].contains(portalRedirectStatus) { return "portalRedirectStatus must be 301, 302, 303, 307 or 308" }
        return nil
    }
}

/// What to do with one request, decided by `FaultState`.
enum FaultAction: Equatable {
    case pass, unavailable, tooManyRequests, serverError, malformed, reject, hang
}

/// The faults and their accumulators; lives inside a `Mutex`.
struct FaultState {
    var faults = Faults()
    private var accumulators: [FaultAction: Double] = [:]

    init(faults: Faults) { self.faults = faults }

    mutating func set(_ faults: Faults) {
        self.faults = faults
        accumulators = [:]
    }

    /// The action for the next request; `isUpload` enables `reject`.
    mutating func next(isUpload: Bool) -> FaultAction {
        let order: [(FaultAction, Double)] = [
            (.hang, faults.hangShare), (.unavailable, faults.unavailableShare), (.tooManyRequests, faults.tooManyRequestsShare),
            (.serverError, faults.serverErrorShare), (.malformed, faults.malformedShare), (.reject, isUpload ? faults.rejectShare : 0),
        ]
        var chosen = FaultAction.pass
        for (action, share) in order where share > 0 {
            let value = accumulators[action, default: 0] + share
            if value >= 1 - 1e-9, chosen == .pass {
                accumulators[action] = value - 1
                chosen = action
            } else {
                accumulators[action] = min(value, 1)
            }
        }
        return chosen
    }
}
