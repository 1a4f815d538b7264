public import Hummingbird
import NIOCore

/// The request context of the control API: it keeps the connection's channel so that the
/// peer's credentials can be checked.
public struct ControlRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
