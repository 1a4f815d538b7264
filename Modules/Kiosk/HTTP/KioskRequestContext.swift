public import Hummingbird
public import NIOCore

/// The request context of the kiosk's pages: Hummingbird's core context and the address of the
/// client that sent the request, which decides whether it may use the staff screen
/// (``KioskStaffAccess``).
public struct KioskRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer of the connection the request came on; nil when the channel has none (a test's).
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
