/// A logo or colour the kiosk cannot use, with what is wrong and what to do.
public struct KioskBrandError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// The colour is not `#rrggbb`.
        case badColor
        /// White text on the colour does not reach 4.5:1.
        case lowContrast
        /// The logo file cannot be read.
        case logoUnreadable
        /// The logo file is over ``KioskLogo/maxBytes``.
        case logoTooLarge
        /// The logo file is neither a PNG nor an SVG image.
        case logoNotAnImage
        /// The attract folder or one of its files cannot be read.
        case attractUnreadable
        /// An attract image is over ``KioskAttractImage/maxBytes``, or the folder over its totals.
        case attractTooLarge
        /// A file of the attract folder is not a PNG, JPEG or SVG image.
        case attractNotAnImage
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
