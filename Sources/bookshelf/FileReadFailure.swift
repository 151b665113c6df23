import Foundation

/// Why a file could not be read, in the system's words ("No such file or directory",
/// "Permission denied", "Is a directory"), not Foundation's "The operation could not be completed".
enum FileReadFailure {
    static func reason(_ error: any Error, path: String? = nil) -> String {
        // Foundation says only "could not be completed" of a directory.
        var isDirectory: ObjCBool = false
        if let path, FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return String(cString: strerror(EISDIR))
        }
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(error.code))) }
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        if let underlying, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return error.localizedDescription
    }
}
