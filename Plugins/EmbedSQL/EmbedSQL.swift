import Foundation
import PackagePlugin

/// Makes the SQL files of a target's `Schema/migrations` folder part of its code, as one
/// generated Swift file (`embed-sql`), so the running program carries its migrations itself.
/// Package resources would do the same through `Bundle.module`, but on Linux that is a folder
/// beside the executable which `Scripts/install` does not copy: an installed `bookshelf`
/// would look for it in the build folder it was made in, and stop when that is gone.
@main
struct EmbedSQL: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let module = target as? SwiftSourceModuleTarget else { return [] }
        let folder = module.directoryURL.appending(path: "Schema/migrations")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let files: [URL] = names.filter { $0.hasSuffix(".sql") }.sorted().map { folder.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) migrations of \(target.name)",
                executable: try context.tool(named: "embed-sql").url,
                arguments: [output.path] + files.map { $0.path },
                inputFiles: files,
                outputFiles: [output])
        ]
    }
}
