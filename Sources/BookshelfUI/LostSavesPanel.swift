import BookCatalog
import BookshelfModel
import TerminalUI

/// The lost saves (F6): each save the catalog acknowledged and then lost this session (a failover
/// to a standby that did not have it), newest first, by name: the book, the revision lost and the
/// one the catalog is back at. Titles come from the store: the canvas draws them made safe.
enum LostSavesPanel {
    static let title = "Lost saves, newest first"

    static func render(_ list: LostSaveList, into canvas: inout Canvas) {
        Box(title: title, lines: lines(list), canvas: canvas, preferredWidth: 72).draw(into: &canvas)
    }

    static func lines(_ list: LostSaveList) -> [String] {
        guard !list.entries.isEmpty else { return ["No save has been lost."] }
        return list.entries.reversed().map { lost in
            "“\(lost.saved.title)” (book #\(lost.saved.id)): revision \(lost.saved.revision) was lost; "
                + "the catalog is back at revision \(lost.current.revision)."
        } + ["", "Opening a lost book brings your text back as its draft (once); saving it sends it again."]
    }
}
