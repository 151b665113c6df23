// Fuzz target: the terminal byte decoder (`InputDecoder`).
// fuzz-needs: InputDecoder
//
// Input: byte 0 chooses a chunk size, the rest is what the terminal sent. Checks the
// decoder's stated contract: input split across `feed` calls at any byte decodes exactly as
// if it had arrived in one piece, and `timeOut()` settles everything held back.

/// Sequences a terminfo entry may name (xterm's Home/End and a VT220 Delete), so the
/// terminfo path is exercised alongside the built-in forms.
private let fuzzTerminfo: [[UInt8]: Key] = [
    Array("\u{1B}OH".utf8): .home, Array("\u{1B}OF".utf8): .end, Array("\u{1B}[3~".utf8): .delete,
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyDecoding(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let chunk = Int(data[0] % 16) + 1
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))

    var whole = InputDecoder(terminfo: fuzzTerminfo)
    let wholeKeys = whole.feed(input) + whole.timeOut()

    var split = InputDecoder(terminfo: fuzzTerminfo)
    var splitKeys: [Key] = []
    var start = 0
    while start < input.count {
        splitKeys += split.feed(input[start..<min(start + chunk, input.count)])
        start += chunk
    }
    splitKeys += split.timeOut()

    precondition(wholeKeys == splitKeys, "split input decoded differently: \(wholeKeys) vs \(splitKeys)")
    precondition(!whole.isWaiting && !split.isWaiting, "timeOut() left bytes held back")
    for key in wholeKeys {
        if case let .paste(text) = key {
            precondition(text.utf8.count <= InputDecoder.maximumPasteBytes * 3, "paste not bounded")
        }
    }
    return 0
}
