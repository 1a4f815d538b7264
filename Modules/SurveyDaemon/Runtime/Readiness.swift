/// What the daemon serves once it is ready.
public struct DaemonEndpoints: Sendable, Hashable {
    /// The control socket's path.
    public var socketPath: String
    /// The kiosk pages' URL, when they are served.
    public var kioskURL: String?
}

/// Calls `onReady` once, when the control socket accepts connections and, when the kiosk pages
/// are served, they listen too: the two servers start concurrently in the service group.
actor Readiness {
    private var controlReady = false
    private var kioskURL: String?
    private let needsKiosk: Bool
    private var called = false
    private let socketPath: String
    private let onReady: @Sendable (DaemonEndpoints) async -> Void

    init(socketPath: String, needsKiosk: Bool, onReady: @escaping @Sendable (DaemonEndpoints) async -> Void) {
        self.socketPath = socketPath
        self.needsKiosk = needsKiosk
        self.onReady = onReady
    }

    func control() async {
        controlReady = true
        await callIfReady()
    }

    func kiosk(_ url: String) async {
        kioskURL = url
        await callIfReady()
    }

    private func callIfReady() async {
        guard !called, controlReady, !needsKiosk || kioskURL != nil else { return }
        called = true
        await onReady(DaemonEndpoints(socketPath: socketPath, kioskURL: kioskURL))
    }
}
