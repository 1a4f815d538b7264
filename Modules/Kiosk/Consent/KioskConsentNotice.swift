import Foundation

/// The notice a respondent reads before the first question and agrees to (or not): the
/// operator's text for one language, and its version.
///
/// The text is plain text or a small part of Markdown: `#` headings, `-` or `*` list items and
/// paragraphs separated by blank lines, `**bold**` inside a line. Nothing in it is markup for the
/// browser: every character is escaped when the page is rendered, so a notice cannot bring
/// HTML, a script or a link of its own.
public struct KioskConsentNotice: Sendable, Hashable {
    /// One block of the notice, as the consent page lays it out.
    public enum Block: Sendable, Hashable {
        case heading([Span])
        case paragraph([Span])
        case list([[Span]])
    }

    /// A run of text, bold or not.
    public struct Span: Sendable, Hashable {
        public var text: String
        public var bold: Bool
    }

    /// The version recorded with a session whose respondent agreed: the daemon gives the first
    /// 16 hex digits of the SHA-256 of the file's bytes, so a changed file is a new version.
    public var version: String
    public var blocks: [Block]
    /// The notice's first heading, or nil when it has none (the page then uses its own).
    public var title: String? {
        for case .heading(let spans) in blocks { return spans.map(\.text).joined() }
        return nil
    }

    /// The largest notice accepted, in bytes.
    public static let maxBytes = 64 * 1024

    public init(version: String, blocks: [Block]) {
        self.version = version
        self.blocks = blocks
    }

    /// A notice from the file's text.
    /// - Throws: ``KioskConsentError`` when the text is empty, too long or not UTF-8.
    public init(bytes: [UInt8], version: String, file: String) throws(KioskConsentError) {
        guard bytes.count <= Self.maxBytes else {
            throw KioskConsentError("the consent notice \(file) is larger than \(Self.maxBytes / 1024) KiB; shorten it (a notice a respondent reads on a kiosk fits on a few screens)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw KioskConsentError("the consent notice \(file) is not UTF-8 text; save it as UTF-8 (plain text or Markdown)")
        }
        let blocks = Self.parse(text)
        guard !blocks.isEmpty else {
            throw KioskConsentError("the consent notice \(file) is empty; write the notice (purpose, what is collected, how long it is kept, the right to refuse) or leave the setting out")
        }
        self.init(version: version, blocks: blocks)
    }

    /// The blocks of a plain-text or Markdown text.
    static func parse(_ text: String) -> [Block] {
        var blocks: [Block] = []
        var paragraph: [String] = []
        var items: [[Span]] = []
        func flush() {
            if !paragraph.isEmpty { blocks.append(.paragraph(spans(paragraph.joined(separator: " ")))) }
            if !items.isEmpty { blocks.append(.list(items)) }
            paragraph = []
            items = []
        }
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty {
                flush()
            } else if line.hasPrefix("#") {
                flush()
                let heading = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
                if !heading.isEmpty { blocks.append(.heading(spans(heading))) }
            } else if line.hasPrefix("- ") || line.hasPrefix("* ") {
                if !paragraph.isEmpty {
                    blocks.append(.paragraph(spans(paragraph.joined(separator: " "))))
                    paragraph = []
                }
                items.append(spans(String(line.dropFirst(2)).trimmingCharacters(in: .whitespaces)))
            } else if !items.isEmpty && raw.first == " " {
                // A list item's continuation line.
                let last = items.removeLast()
                items.append(last + spans(" " + line))
            } else {
                if !items.isEmpty {
                    blocks.append(.list(items))
                    items = []
                }
                paragraph.append(line)
            }
        }
        flush()
        return blocks
    }

    /// `**bold**` runs of a line; an unpaired `**` stays as it is.
    static func spans(_ line: String) -> [Span] {
        let parts = line.components(separatedBy: "**")
        guard parts.count >= 3 else { return [Span(text: line, bold: false)] }
        var result: [Span] = []
        let paired = parts.count % 2 == 1 ? parts.count : parts.count - 1
        for (index, part) in parts.prefix(paired).enumerated() where !part.isEmpty {
            result.append(Span(text: part, bold: index % 2 == 1))
        }
        if paired < parts.count {
            let rest = "**" + parts[paired...].joined(separator: "**")
            result.append(Span(text: rest, bold: false))
        }
        return result
    }
}

/// A consent notice the kiosk cannot use, with what to do.
public struct KioskConsentError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
