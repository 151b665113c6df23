import Foundation

/// The folder that holds the file at `path`, for the files made beside it (the build's
/// scratch files, a snapshot's temporaries): "." when the path names no folder. A catalog
/// opened as `books.sqlite` is in the working directory, and the empty string would turn a
/// name joined to it into one at the root of the file system.
package func folder(holding path: String) -> String {
    let folder = (path as NSString).deletingLastPathComponent
    return folder.isEmpty ? "." : folder
}
