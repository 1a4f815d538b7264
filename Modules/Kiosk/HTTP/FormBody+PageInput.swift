import Entities

extension FormBody {
    /// The page's paradata field `pd` ("taps.keys.spanMs.shown", written by paradata.js); nil
    /// when it is absent or not four whole numbers. Never an error: an answer is never refused
    /// for what a page counted, and a value past ``PageInput/limit`` is clamped.
    var pageInput: PageInput? {
        guard let text = value("pd"), text.utf8.count <= 64 else { return nil }
        let numbers = text.split(separator: ".", omittingEmptySubsequences: false).map { part in
            part.isEmpty || part.utf8.count > 12 || !part.utf8.allSatisfy({ (48...57).contains($0) }) ? nil : Int(part)
        }
        guard numbers.count == 4, numbers.allSatisfy({ $0 != nil }) else { return nil }
        return PageInput(taps: numbers[0]!, keys: numbers[1]!, spanMilliseconds: numbers[2]!, stillThereShown: numbers[3]!)
    }
}
