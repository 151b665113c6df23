import Testing
@testable import TerminalUI

/// The event loop itself (decoding, delivery, coalesced frames, resize, Ctrl-Z) on the memory
/// backend: what the app's `Terminal` does with ncurses, without a tty. Waiting is for frames
/// and events the loop produces, never for a clock.
@MainActor
@Suite("Terminal event loop")
struct TerminalLoopTests {
    /// A terminal on a memory backend that draws the keys it has received on its first line.
    @MainActor
    final class Rig {
        let backend: MemoryTerminalBackend
        let terminal: Terminal
        private(set) var events: [TerminalEvent] = []
        private var eventWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        init(columns: Int = 20, rows: Int = 4) {
            backend = MemoryTerminalBackend(size: TerminalSize(rows: rows, columns: columns))
            terminal = Terminal(backend: backend, options: Terminal.Options(escapeDelayMilliseconds: 0))
            terminal.onEvent = { [unowned self] event in
                events.append(event)
                let ready = eventWaiters.filter { $0.count <= events.count }
                eventWaiters.removeAll { $0.count <= events.count }
                ready.forEach { $0.continuation.resume() }
            }
            terminal.render = { [unowned self] canvas in
                let typed = events.compactMap { event -> String? in
                    if case let .key(.character(character)) = event { return String(character) }
                    return nil
                }.joined()
                canvas.draw("keys:" + typed, x: 0, y: 0)
                canvas.draw("\(canvas.width)x\(canvas.height)", x: 0, y: 1)
            }
        }

        func waitForEvents(_ count: Int) async {
            if events.count >= count { return }
            await withCheckedContinuation { eventWaiters.append((count, $0)) }
        }
    }

    @Test("starting reads input and draws one frame")
    func startDrawsAFrame() async {
        let rig = Rig()
        #expect(!rig.backend.isInputStarted)
        rig.terminal.start()
        #expect(rig.backend.isInputStarted)
        await rig.backend.waitForFrames(1)
        #expect(rig.backend.lines.prefix(2) == ["keys:               ", "20x4                "])
    }

    @Test("bytes are decoded into keys, delivered in order, and drawn in one coalesced frame")
    func keysAreDecodedAndCoalesced() async {
        let rig = Rig()
        rig.terminal.start()
        await rig.backend.waitForFrames(1)
        rig.backend.send("ab\u{1B}[A\u{03}c")
        #expect(
            rig.events == [
                .key(.character("a")), .key(.character("b")), .key(.up), .key(.ctrl("c")), .key(.character("c")),
            ])
        await rig.backend.waitForFrames(2)
        #expect(rig.backend.lines[0] == "keys:abc            ")
        #expect(rig.backend.framesPresented == 2, "five events, one frame")
    }

    @Test("a bracketed paste arrives as one paste, never as keys")
    func pasteIsText() async {
        let rig = Rig()
        rig.terminal.start()
        rig.backend.send("\u{1B}[200~q\u{11}x\u{1B}[201~")
        #expect(rig.events == [.key(.paste("q\u{11}x"))])
        await rig.backend.waitForFrames(1)
    }

    @Test("a paste end marker inside pasted text runs nothing after it: the rest of that read is paste")
    func pasteEndInsidePasteRunsNoKeys() async {
        let rig = Rig()
        rig.terminal.start()
        rig.backend.send("\u{1B}[200~abc\u{1B}[201~\u{11}after\u{1B}[201~")
        #expect(rig.events == [.key(.paste("abcafter"))], "Ctrl-Q never arrives as a key")
        await rig.backend.waitForFrames(1)
    }

    @Test("a lone Esc is delivered once the escape delay has passed")
    func loneEscapeAfterTheDelay() async {
        let rig = Rig()
        rig.terminal.start()
        rig.backend.send([0x1B])
        #expect(rig.events.isEmpty, "Esc may be the start of a sequence")
        await rig.waitForEvents(1)
        #expect(rig.events == [.key(.escape)])
        await rig.backend.waitForFrames(1)
    }

    @Test("a resize is delivered and the next frame is drawn in full at the new size")
    func resizeRedrawsAtTheNewSize() async {
        let rig = Rig(columns: 20, rows: 4)
        rig.terminal.start()
        await rig.backend.waitForFrames(1)
        rig.backend.resize(to: TerminalSize(rows: 3, columns: 12))
        #expect(rig.events == [.resize(TerminalSize(rows: 3, columns: 12))])
        #expect(rig.terminal.size == TerminalSize(rows: 3, columns: 12))
        await rig.backend.waitForFrames(2)
        #expect(rig.backend.lines == ["keys:       ", "12x3        ", "            "])
        #expect(rig.backend.screen.lastUpdates.count == 12 * 3, "every cell is sent after a resize")
    }

    /// A window larger than any screen shows (10000×10000 is what tmux allows) would cost a
    /// canvas, a frame kept for the diff and ncurses' own grids of that size: the app grew to
    /// 15.8 GB. The terminal draws at most 1000 columns by 500 rows (docs/terminals.md), the top
    /// left of the window, and a window that shrinks again is drawn at its own size.
    @Test("a window larger than the largest drawn is drawn clipped to it, and at its own size once it shrinks")
    func anEnormousWindowIsClipped() async {
        let rig = Rig(columns: 120, rows: 40)
        rig.terminal.start()
        await rig.backend.waitForFrames(1)
        let largest = TerminalSize(rows: 500, columns: 1000)
        rig.backend.resize(to: TerminalSize(rows: 1200, columns: 2400))
        #expect(rig.terminal.size == largest)
        #expect(rig.events == [.resize(largest)], "the app lays out what is drawn")
        await rig.backend.waitForFrames(2)
        #expect(rig.backend.lines.count == 500 && rig.backend.lines[1].hasPrefix("1000x500 "))

        // Only the rows grow past it: the columns stay the window's.
        rig.backend.resize(to: TerminalSize(rows: 10_000, columns: 90))
        #expect(rig.terminal.size == TerminalSize(rows: 500, columns: 90))
        await rig.backend.waitForFrames(3)
        #expect(rig.backend.lines.count == 500 && rig.backend.lines[1].hasPrefix("90x500 "))

        rig.backend.resize(to: TerminalSize(rows: 40, columns: 120))
        #expect(rig.terminal.size == TerminalSize(rows: 40, columns: 120))
        await rig.backend.waitForFrames(4)
        #expect(rig.backend.lines.count == 40 && rig.backend.lines[1].hasPrefix("120x40 "))
    }

    @Test("Ctrl-Z gives the screen back and stops; input while stopped is dropped; continuing redraws at once")
    func suspendAndContinue() async {
        let rig = Rig()
        rig.terminal.start()
        await rig.backend.waitForFrames(1)
        rig.backend.send("a\u{1A}")
        #expect(rig.backend.isSuspended)
        #expect(rig.backend.restoreCount == 1)
        rig.backend.send("b")
        #expect(rig.events == [.key(.character("a"))], "nothing is delivered while stopped")
        rig.backend.continueProgram()
        #expect(!rig.backend.isSuspended)
        #expect(rig.backend.lines[0] == "keys:a              ", "drawn in full on coming back, not a turn later")
        #expect(rig.backend.screen.lastUpdates.count == 20 * 4)
    }

    @Test("without job control Ctrl-Z does nothing and input goes on")
    func noJobControl() async {
        let rig = Rig()
        rig.backend.canSuspend = false
        rig.terminal.start()
        rig.backend.send("\u{1A}x")
        #expect(!rig.backend.isSuspended)
        #expect(rig.backend.restoreCount == 0)
        #expect(rig.events == [.key(.character("x"))])
        await rig.backend.waitForFrames(1)
    }
}
