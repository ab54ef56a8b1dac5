import Foundation
import NIOCore
import NIOHTTP1

/// A whole HTTP request as the server reads it.
struct HTTPRequest: Sendable {
    var method: HTTPMethod
    /// The path and query.
    var target: String
    var headers: HTTPHeaders
    var body: Data
}

/// A status, a JSON body and the headers to send with it.
struct HTTPAnswer: Sendable {
    var status: Int
    var body: Data
    var contentType = "application/fhir+json"
    var headers: [(String, String)] = []
}

/// One HTTP/1.1 connection: each whole request answered as `respond` says, or left hanging.
final class HTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let respond: @Sendable (HTTPRequest) -> HTTPAnswer?
    private var head: HTTPRequestHead?
    private var body = Data()

    init(respond: @escaping @Sendable (HTTPRequest) -> HTTPAnswer?) {
        self.respond = respond
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = Data()
        case .body(let bytes):
            body.append(contentsOf: bytes.readableBytesView)
        case .end:
            guard let head, let answer = respond(HTTPRequest(method: head.method, target: head.uri, headers: head.headers, body: body)) else {
                return
            }
            var headers = HTTPHeaders([("Content-Type", answer.contentType), ("Content-Length", "\(answer.body.count)")] + answer.headers)
            if !head.isKeepAlive { headers.add(name: "Connection", value: "close") }
            let responseHead = HTTPResponseHead(version: head.version, status: .init(statusCode: answer.status), headers: headers)
            context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: answer.body)))), promise: nil)
            let closing = !head.isKeepAlive
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                if closing { context.close(promise: nil) }
            }
        }
    }
}
