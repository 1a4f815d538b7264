#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension DeliveryWorker {
    /// What the worker has done, for `surveyctl status`.
    public struct Snapshot: Sendable, Hashable {
        public var inFlight: Int
        public var delivered: Int
        public var lastDeliveryAt: Date?
        public var lastOutcomeOffline: Bool
        /// Why delivery is paused (the server refused the token), and since when; nil while it runs.
        public var paused: Pause? = nil
    }

    /// Delivery stopped because the server refused the token.
    public struct Pause: Sendable, Hashable {
        /// `the server refused the token (401)`.
        public var reason: String
        public var since: Date
    }
}
