import HTTPTypes
import Hummingbird
@testable import Kiosk
import NIOCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct RequestCookieTests {
    static func request(_ cookieHeaders: [String]) -> Request {
        var fields = HTTPFields()
        for header in cookieHeaders { fields.append(HTTPField(name: .cookie, value: header)) }
        return Request(head: HTTPRequest(method: .get, scheme: "http", authority: "kiosk", path: "/", headerFields: fields), body: RequestBody(buffer: ByteBuffer()))
    }

    static let headers: [[String]] = [
        [], ["kiosk=abc"], ["a=1; kiosk=abc; b=2"], ["a=1;kiosk=abc"], ["a=1;  \tkiosk=abc "], ["kiosk2=x; kiosk=y"], ["xkiosk=x"],
        ["kiosk="], ["kiosk=a=b"], ["kiosk"], ["kiosk; kiosk=late"], ["a=1", "kiosk=second"], ["kiosk=first", "kiosk=second"],
        ["Kiosk=upper"], [";;kiosk=z;;"], ["kiosk=\"quoted\""], ["kiosk=한국"],
    ]

    @Test(arguments: headers)
    func readsWhatHummingbirdsParserReads(_ headers: [String]) {
        let request = Self.request(headers)
        #expect(request.cookie(named: "kiosk") == request.cookies["kiosk"]?.value)
    }

    /// Where the byte reader differs from Hummingbird's parser: neither comes from a browser's
    /// kiosk cookie (its value is base64url, its name plain ASCII).
    @Test func differsOnlyWhereNoBrowserSendsIt() {
        #expect(Self.request(["kiosk==x"]).cookie(named: "kiosk") == "=x")
        #expect(Self.request(["a=1;\u{00A0}kiosk=x"]).cookie(named: "kiosk") == nil)
    }

    @Test func findsTheCookieAmongOthers() {
        #expect(Self.request(["theme=dark; kiosk=t0k3n; lang=en"]).cookie(named: "kiosk") == "t0k3n")
        #expect(Self.request(["kiosk2=x"]).cookie(named: "kiosk") == nil)
        #expect(Self.request([]).cookie(named: "kiosk") == nil)
    }
}
