import HTTPTypes
import Hummingbird

extension Request {
    /// The value of the cookie `name` in the request's `Cookie` headers (the first one so named;
    /// nil when it is empty), read from the header's bytes: every page request looks up its
    /// browser's cookie, and the general parser showed in their profile. It gives what
    /// `cookies[name]?.value` gives for what browsers send; it skips only spaces and tabs before a
    /// name, and a value is everything after the first `=`.
    func cookie(named name: String) -> String? {
        for header in headers[values: .cookie] {
            var rest = header.utf8[...]
            while !rest.isEmpty {
                let end = rest.firstIndex(of: UInt8(ascii: ";")) ?? rest.endIndex
                let pair = rest[rest.startIndex..<end].drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
                rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
                guard let equals = pair.firstIndex(of: UInt8(ascii: "=")), pair[..<equals].elementsEqual(name.utf8) else { continue }
                let value = pair[pair.index(after: equals)...]
                return value.isEmpty ? nil : String(Substring(value))
            }
        }
        return nil
    }
}
