import BookshelfTestSupport
import Foundation
import TestTags
import Testing

/// What the README says of `--latency` and `--trace`: requests are numbered in the order they
/// start, connecting to the first account is 1, its first search 2, and every number in the
/// trace is one F4 lists, with no gaps, whatever ran in the background meanwhile (the account
/// list, the header's count, a check for others' changes each second).
@Suite(.tags(.tmux), .serialized) struct RequestNumberTmuxTests {
    @Test(.enabled(if: TmuxPane.shouldRun)) func theTraceAndF4NumberRequestsFromOneWithoutGaps() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let trace = sandbox.path("trace.log")
        let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
        let pane = try TmuxPane(
            "env HOME=\(shellQuoted(sandbox.path("home"))) \(shellQuoted(binary.path)) --db \(shellQuoted(db)) "
                + "--latency 30 --trace \(shellQuoted(trace)); exec sleep 600", columns: 100, rows: 30)
        defer { pane.kill() }
        try pane.waitFor(text: "of 3,010")
        try pane.waitFor(text: "3,010 books")
        try pane.type("rome")
        // Connecting, the first results and one search a key: the trace lists what answered.
        let requests = try Await.until("the trace to list the searches", probe: { try Self.requests(in: trace) }) {
            $0.count >= 6
        }
        try pane.send("F4")
        let panel = try pane.waitFor("F4 to list the requests the trace lists") { screen in
            screen.contains("Requests, newest first") && requests.allSatisfy { screen.contains("#\($0.number) ") }
        }
        #expect(requests.first == Request(number: 1, kind: "connect"), "\(requests)")
        #expect(requests.dropFirst().first == Request(number: 2, kind: "search"), "\(requests)")
        #expect(
            requests.map(\.number).sorted() == Array(1...requests.count),
            "no gaps (in the order they answered): \(requests)")
        for request in requests {
            #expect(panel.contains("#\(request.number) "), "F4 lists #\(request.number):\n\(panel)")
        }
    }

    struct Request: Equatable {
        let number: Int
        let kind: String
    }

    /// The `event=request` lines of the trace, in order.
    static func requests(in path: String) throws -> [Request] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").filter { $0.hasPrefix("event=request ") }.compactMap { line in
            let fields = Dictionary(
                line.split(separator: " ").compactMap { word -> (String, String)? in
                    let parts = word.split(separator: "=", maxSplits: 1)
                    return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
                }, uniquingKeysWith: { first, _ in first })
            guard let number = fields["request"].flatMap(Int.init), let kind = fields["kind"] else { return nil }
            return Request(number: number, kind: kind)
        }
    }
}
