// Fuzz target: display width and layout of arbitrary Unicode on the cell canvas
// (`Canvas`, `TextLayout`).
// fuzz-needs: Canvas TextLayout
//
// Input: 4 bytes of geometry (canvas width, x, y, clip width; signed where a caller may pass
// a negative), then UTF-8 text (invalid bytes repaired). Checks the canvas invariants its
// documentation states, and that truncation fits exactly.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCanvasLayout(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 4 else { return 0 }
    let width = Int(data[0] % 40)
    let x = Int(Int8(bitPattern: data[1])) % 48
    let y = Int(data[2] % 4) - 1
    let clip = Int(Int8(bitPattern: data[3]))
    let text = String(decoding: UnsafeBufferPointer(start: data + 4, count: size - 4), as: UTF8.self)

    var canvas = Canvas(width: width, height: 2)
    canvas.draw("界a界", x: 0, y: 0)
    let drawn = canvas.draw(text, x: x, y: y, maxWidth: clip < 0 ? nil : clip)
    if clip >= 0 { precondition(drawn <= clip, "drew \(drawn) columns into \(clip)") }
    canvas.drawTruncated(text, x: x / 2, y: 1, width: clip % 20)
    canvas.setStyle(.plain, in: Rect(x: x / 3, y: 0, width: clip % 7, height: 2))

    for row in 0..<canvas.height {
        for column in 0..<canvas.width {
            let cell = canvas[column, row]
            if cell.isContinuation {
                var lead = column - 1
                while lead > 0, canvas[lead, row].isContinuation { lead -= 1 }
                precondition(
                    lead >= 0 && lead + canvas[lead, row].width > column, "orphan continuation at \(column),\(row)")
            }
            if cell.width > 1 {
                precondition(
                    column + cell.width <= canvas.width
                        && (column + 1..<column + cell.width).allSatisfy { canvas[$0, row].isContinuation },
                    "wide glyph without its continuations at \(column),\(row)")
            }
            for scalar in cell.symbol.unicodeScalars {
                precondition(
                    scalar.value >= 0x20 && !(0x7F...0x9F).contains(scalar.value),
                    "control character U+\(String(scalar.value, radix: 16)) reached the canvas")
            }
        }
    }

    let total = TextLayout.width(text)
    let limit = Int(data[3] % 64)
    let truncated = TextLayout.width(TextLayout.truncate(text, toWidth: limit))
    precondition(truncated == min(total, limit), "truncate(\(limit)) is \(truncated) wide, text is \(total)")
    return 0
}
