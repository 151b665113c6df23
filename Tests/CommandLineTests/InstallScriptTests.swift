import BookshelfTestSupport
import Foundation
import TestTags
import Testing

/// `Scripts/install` into a scratch prefix, with the debug products the tests were built with
/// (`--build-dir`: no release build in the test run): the installed programs run, `man` shows
/// the page, each shell's completion is where that shell looks, and `--uninstall` leaves the
/// prefix as it found it.
@Suite(.tags(.process)) struct InstallScriptTests {
    /// Where the issue and the shells put each file, relative to the prefix.
    static let installed = [
        "bin/bookshelf", "bin/bookshelf-demo", "bin/bookshelf-bench",
        "share/man/man1/bookshelf.1",
        "share/bash-completion/completions/bookshelf",
        "share/zsh/site-functions/_bookshelf",
        "share/fish/vendor_completions.d/bookshelf.fish",
        "share/bookshelf/installed-files",
    ]

    @Test(.enabled(if: Tool.man.shouldRun && Tool.bash.shouldRun))
    func installsIntoAPrefixAndUninstallsExactlyThat() throws {
        let man = try Tool.man.require()
        let scenario = try Scenario()
        defer { scenario.directory.remove() }
        // The prefix already holds a program and a page of someone else's, and an empty folder.
        try scenario.makeFile("bin/other-tool", mode: 0o755)
        try scenario.makeFile("share/man/man1/other-tool.1")
        try FileManager.default.createDirectory(
            atPath: scenario.prefix + "/share/fish", withIntermediateDirectories: true)
        let before = try scenario.tree()

        let install = try scenario.install(["--with-bench"])
        #expect(install.status == 0, "\(install.errors)")
        let added = try scenario.tree().subtracting(before)
        #expect(added == Self.withFolders(Self.installed).subtracting(before), "what the install added")

        // The installed programs run from the prefix.
        let version = try scenario.run(scenario.prefix + "/bin/bookshelf", ["--version"])
        #expect(version.status == 0 && version.output.hasPrefix("bookshelf "), "\(version)")
        for program in ["bookshelf-demo", "bookshelf-bench"] {
            let help = try scenario.run(scenario.prefix + "/bin/" + program, ["--help"])
            #expect(help.status == 0 && help.output.contains(program), "\(program) --help: \(help)")
        }

        // man shows the installed page, and finds it by name from PATH as `man bookshelf` does.
        let page = try scenario.run(
            man, ["--warnings", "-l", scenario.prefix + "/share/man/man1/bookshelf.1"],
            environment: ["MANWIDTH": "100", "LC_ALL": "C.UTF-8"])
        #expect(page.status == 0 && page.errors.isEmpty, "man -l: \(page)")
        #expect(page.output.contains("BOOKSHELF(1)") && page.output.contains("SYNOPSIS"))
        let found = try scenario.run(
            man, ["-w", "bookshelf"], environment: ["PATH": scenario.prefix + "/bin:/usr/bin:/bin"])
        #expect(found.output == scenario.prefix + "/share/man/man1/bookshelf.1\n", "man -w bookshelf: \(found)")

        // Each completion is the script the program prints for that shell.
        for (shell, path) in [("bash", Self.installed[4]), ("zsh", Self.installed[5]), ("fish", Self.installed[6])] {
            let printed = try scenario.run(scenario.binary.path, ["completions", shell])
            let file = try String(contentsOfFile: scenario.prefix + "/" + path, encoding: .utf8)
            #expect(
                printed.status == 0 && !file.isEmpty && file == printed.output, "the \(shell) completion at \(path)")
        }
        // bash, given the installed file, completes bookshelf with it.
        let registered = try scenario.run(
            try Tool.bash.require(),
            [
                "--norc", "--noprofile", "-c",
                "source \(shellQuoted(scenario.prefix + "/" + Self.installed[4])); complete -p bookshelf",
            ])
        #expect(registered.output == "complete -F _bookshelf bookshelf\n", "\(registered)")

        // A file the user put in a folder the install made stays, and so does that folder.
        try scenario.makeFile("share/zsh/site-functions/_other-tool")
        let kept = try scenario.tree()
        let uninstall = try scenario.install(["--uninstall"])
        #expect(uninstall.status == 0, "\(uninstall.errors)")
        let left = try scenario.tree()
        #expect(
            left == before.union(Self.withFolders(["share/zsh/site-functions/_other-tool"])),
            "left after uninstalling: \(left.subtracting(before).sorted())")
        #expect(kept.isSuperset(of: left))
    }

    /// Installing again replaces the first install; one uninstall then removes everything,
    /// folders the first one made included (one held a file of the user's during the second).
    @Test func aSecondInstallReplacesTheFirst() throws {
        let scenario = try Scenario()
        defer { scenario.directory.remove() }
        let before = try scenario.tree()
        #expect(try scenario.install(["--with-bench"]).status == 0)
        try scenario.makeFile("share/zsh/site-functions/_other-tool")
        let again = try scenario.install([])
        #expect(again.status == 0, "\(again.errors)")
        try FileManager.default.removeItem(atPath: scenario.prefix + "/share/zsh/site-functions/_other-tool")
        let expected = Self.installed.filter { $0 != "bin/bookshelf-bench" }
        #expect(try scenario.tree().subtracting(before) == Self.withFolders(expected), "without --with-bench, no bench")
        #expect(try scenario.install(["--uninstall"]).status == 0)
        let left = try scenario.tree()
        #expect(left == before, "left: \(left.subtracting(before).sorted())")
    }

    /// Without --build-dir the script makes a release build with the Swift runtime and
    /// Foundation linked in, stripped, in a scratch folder of its own, and installs from that
    /// build's bin path. `swift` here is a stand-in that writes down how it was called (a real
    /// release build is minutes of CI time) and names a folder of programs as that bin path.
    /// It builds product by product: a whole-package static build also builds the TestTags
    /// module, which imports Swift Testing, and the static SDK has no such module (the real
    /// build failed so, while this stand-in let every call pass).
    @Test func withoutABuildDirItBuildsAStaticReleaseFirst() throws {
        let scenario = try Scenario()
        defer { scenario.directory.remove() }
        let root = Scenario.script.deletingLastPathComponent().deletingLastPathComponent().path
        let build =
            "build -c release --static-swift-stdlib -Xlinker --strip-all -Xlinker --no-export-dynamic -Xlinker -no-pie"
            + " -Xswiftc -L -Xswiftc \(root)/.build/static-archives -Xlinker -ltinfo --scratch-path \(root)/.build/static"
        let stubbed = try scenario.stubbedSwift(products: scenario.binary.deletingLastPathComponent().path)

        let failed = try scenario.run(
            "/bin/bash", [Scenario.script.path, "--prefix", scenario.prefix],
            environment: ["PATH": stubbed.path, "STUB_STATUS": "1", "CC": try Scenario.compiler()])
        #expect(failed.status == 1 && failed.errors.contains("the release build of bookshelf failed"), "\(failed)")
        #expect(try String(contentsOfFile: stubbed.calls, encoding: .utf8) == "\(root): \(build) --product bookshelf\n")
        #expect(try scenario.tree().isEmpty, "nothing installed after a failed build")

        let selfContained = try scenario.stubbedSwift(products: scenario.selfContainedProducts())
        let built = try scenario.run(
            "/bin/bash", [Scenario.script.path, "--prefix", scenario.prefix],
            environment: ["PATH": selfContained.path, "CC": try Scenario.compiler()])
        #expect(built.status == 0, "\(built)")
        #expect(
            try String(contentsOfFile: selfContained.calls, encoding: .utf8)
                == "\(root): \(build) --product bookshelf\n\(root): \(build) --product bookshelf-demo\n"
                + "\(root): \(build) --show-bin-path\n")
        #expect(try scenario.tree() == Self.withFolders(Self.installed.filter { $0 != "bin/bookshelf-bench" }))
        for name in ["bookshelf", "bookshelf-demo"] {
            let needed = try scenario.sharedLibraries(of: scenario.prefix + "/bin/" + name)
            #expect(!needed.isEmpty && needed.allSatisfy { !Self.isSwiftLibrary($0) }, "\(name) needs \(needed)")
        }
        // The archives the build links in, where its library path names them first.
        for name in ["libsqlite3.a", "libncursesw.a", "libtinfo.a", "libstdc++.a"] {
            let link = root + "/.build/static-archives/" + name
            let target = try FileManager.default.destinationOfSymbolicLink(atPath: link)
            #expect(
                target.hasSuffix("/" + name) && FileManager.default.isReadableFile(atPath: link), "\(link) → \(target)")
        }
    }

    /// `--system-libraries` leaves SQLite, ncurses and the C++ runtime to be loaded from the
    /// system at run time, `--pie` keeps the program position-independent; both say how to
    /// build, so neither goes with `--build-dir`.
    @Test func theBuildsChoicesChangeItsCommand() throws {
        let scenario = try Scenario()
        defer { scenario.directory.remove() }
        let root = Scenario.script.deletingLastPathComponent().deletingLastPathComponent().path
        let stubbed = try scenario.stubbedSwift(products: scenario.selfContainedProducts())
        let built = try scenario.run(
            "/bin/bash", [Scenario.script.path, "--prefix", scenario.prefix, "--system-libraries", "--pie"],
            environment: ["PATH": stubbed.path, "CC": "/no/such/compiler"])
        #expect(built.status == 0, "\(built)")
        let build =
            "build -c release --static-swift-stdlib -Xlinker --strip-all -Xlinker --no-export-dynamic"
            + " --scratch-path \(root)/.build/static"
        #expect(
            try String(contentsOfFile: stubbed.calls, encoding: .utf8)
                == "\(root): \(build) --product bookshelf\n\(root): \(build) --product bookshelf-demo\n"
                + "\(root): \(build) --show-bin-path\n")

        for option in ["--system-libraries", "--pie"] {
            let refused = try scenario.install([option])
            #expect(refused.status == 2 && refused.errors.contains("not with --build-dir"), "\(refused)")
        }
    }

    /// A static archive the compiler cannot find stops the install before anything is built,
    /// naming it and the way out; so does a build whose programs still load one of those
    /// libraries from the system.
    @Test func aMissingArchiveOrALibraryLeftSharedIsRefused() throws {
        let scenario = try Scenario()
        defer { scenario.directory.remove() }
        let stubbed = try scenario.stubbedSwift(products: scenario.directory.path("never-built"))
        // A compiler that finds nothing prints the bare name back, as cc and clang do.
        let blind = scenario.directory.path("blind-cc")
        let written = try scenario.run(
            "/bin/sh",
            ["-c", "printf '#!/bin/sh\\necho \"${1#-print-file-name=}\"\\n' > \"$1\" && chmod 755 \"$1\"", "sh", blind])
        #expect(written.status == 0, "\(written)")
        let missing = try scenario.run(
            "/bin/bash", [Scenario.script.path, "--prefix", scenario.prefix],
            environment: ["PATH": stubbed.path, "CC": blind])
        #expect(
            missing.status == 1 && missing.errors.contains("no static libsqlite3.a")
                && missing.errors.contains("--system-libraries"), "\(missing)")
        #expect(!FileManager.default.fileExists(atPath: stubbed.calls), "nothing built")

        // Programs that load SQLite from the system, though its archive was there to link.
        let compiler = try Scenario.compiler()
        let products = scenario.directory.path("shared-products")
        try FileManager.default.createDirectory(atPath: products, withIntermediateDirectories: true)
        let source = scenario.directory.path("uses-sqlite.c")
        try "int sqlite3_libversion_number(void);\nint main(void) { return sqlite3_libversion_number() == 0; }\n"
            .write(toFile: source, atomically: true, encoding: .utf8)
        for name in ["bookshelf", "bookshelf-demo"] {
            let compiled = try scenario.run(compiler, [source, "-o", products + "/" + name, "-lsqlite3"])
            #expect(compiled.status == 0, "\(compiled)")
        }
        let shared = try scenario.stubbedSwift(products: products)
        let refused = try scenario.run(
            "/bin/bash", [Scenario.script.path, "--prefix", scenario.prefix],
            environment: ["PATH": shared.path, "CC": compiler])
        #expect(
            refused.status == 1 && refused.errors.contains("bookshelf loads libsqlite3.so.0 at run time"), "\(refused)")
        #expect(try scenario.tree().isEmpty, "nothing installed")
    }

    /// A build of its own that came out linked to the Swift runtime at run time (a toolchain
    /// without the static libraries) is refused, naming the libraries, and nothing is installed.
    @Test func aBuildThatLoadsTheSwiftRuntimeIsRefused() throws {
        let scenario = try Scenario()
        defer { scenario.directory.remove() }
        // The tests' own products load the Swift runtime and Foundation from shared libraries.
        let products = scenario.binary.deletingLastPathComponent().path
        let needed = try scenario.sharedLibraries(of: products + "/bookshelf")
        #expect(needed.contains("libswiftCore.so") && needed.contains("libFoundation.so"), "\(needed)")
        let stubbed = try scenario.stubbedSwift(products: products)
        let refused = try scenario.run(
            "/bin/bash", [Scenario.script.path, "--prefix", scenario.prefix], environment: ["PATH": stubbed.path])
        #expect(refused.status == 1, "\(refused)")
        #expect(
            refused.errors.contains("bookshelf loads the Swift runtime at run time (")
                && refused.errors.contains(" libswiftCore.so ") && refused.errors.contains(" libFoundation.so "),
            "\(refused.errors)")
        #expect(try scenario.tree().isEmpty, "nothing installed")
    }

    static func isSwiftLibrary(_ name: String) -> Bool {
        ["libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime"].contains {
            name.hasPrefix($0)
        }
    }

    /// A prefix that was not there is made by the install (only it: not a missing folder above
    /// it), written down, and removed with the rest, across a second install too.
    @Test func aPrefixItCreatedGoesWithTheUninstall() throws {
        let scenario = try Scenario(createPrefix: false)
        defer { scenario.directory.remove() }
        #expect(try scenario.install([]).status == 0)
        #expect(try scenario.install([]).status == 0, "installed again")
        #expect(try scenario.install(["--uninstall"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: scenario.prefix), "the prefix the install made is gone")

        let below = try scenario.run(
            "/bin/bash",
            [
                Scenario.script.path, "--prefix", scenario.directory.path("missing/prefix"),
                "--build-dir", scenario.binary.deletingLastPathComponent().path,
            ])
        #expect(
            below.status == 1 && below.errors.contains(scenario.directory.path("missing") + " does not exist"),
            "\(below)")
        #expect(!FileManager.default.fileExists(atPath: scenario.directory.path("missing")))
    }

    /// A file at a destination that no install of this script wrote is the user's: refused, untouched.
    @Test func aFileItDidNotInstallIsRefused() throws {
        let scenario = try Scenario()
        defer { scenario.directory.remove() }
        try scenario.makeFile("bin/bookshelf", mode: 0o755, text: "someone else's bookshelf\n")
        let before = try scenario.tree()
        let install = try scenario.install([])
        #expect(install.status == 1)
        #expect(
            install.errors.contains(scenario.prefix + "/bin/bookshelf exists and was not installed by this script"),
            "\(install.errors)")
        #expect(try scenario.tree() == before, "nothing installed")
        #expect(
            try String(contentsOfFile: scenario.prefix + "/bin/bookshelf", encoding: .utf8)
                == "someone else's bookshelf\n")
    }

    @Test func mistakesAreSaidClearly() throws {
        let scenario = try Scenario()
        defer { scenario.directory.remove() }
        let before = try scenario.tree()
        let nothing = try scenario.install(["--uninstall"])
        #expect(nothing.status == 1 && nothing.errors.contains("nothing to uninstall"), "\(nothing.errors)")
        let unknown = try scenario.install(["--prefx", "x"])
        #expect(unknown.status == 2 && unknown.errors.contains("unknown option \"--prefx\""), "\(unknown.errors)")
        let missing = try scenario.run("/bin/bash", [Scenario.script.path, "--prefix"])
        #expect(missing.status == 2 && missing.errors.contains("--prefix needs a directory"), "\(missing.errors)")
        let noBuild = try scenario.run(
            "/bin/bash",
            [
                Scenario.script.path, "--prefix", scenario.prefix,
                "--build-dir", scenario.directory.path("no-such-build"),
            ])
        #expect(noBuild.status == 2 && noBuild.errors.contains("no build directory"), "\(noBuild.errors)")
        let help = try scenario.run("/bin/bash", [Scenario.script.path, "--help"])
        #expect(help.status == 0 && help.output.contains("--uninstall") && help.output.contains("~/.local"))
        #expect(try scenario.tree() == before)
    }

    /// Each path with every folder above it (the prefix itself left out).
    static func withFolders(_ paths: [String]) -> Set<String> {
        var all = Set<String>()
        for path in paths {
            all.insert(path)
            var parts = path.split(separator: "/").dropLast()
            while !parts.isEmpty {
                all.insert(parts.joined(separator: "/") + "/")
                parts = parts.dropLast()
            }
        }
        return all
    }

    struct Scenario {
        static let script = RepositoryFile.url("Scripts/install")

        let directory: ScratchDirectory
        let prefix: String
        let binary: URL

        init(createPrefix: Bool = true) throws {
            directory = try ScratchDirectory()
            prefix = directory.path("prefix")
            if createPrefix {
                try FileManager.default.createDirectory(atPath: prefix, withIntermediateDirectories: true)
            }
            binary = try #require(
                BuildProducts.executable(named: "bookshelf"), "the bookshelf executable is built beside the tests")
        }

        struct Outcome: CustomStringConvertible {
            let status: Int32
            let output: String
            let errors: String
            var description: String {
                "status \(status), output \(output.debugDescription), errors \(errors.debugDescription)"
            }
        }

        /// `Scripts/install --prefix PREFIX --build-dir PRODUCTS arguments` (or with --uninstall, no build dir).
        func install(_ arguments: [String]) throws -> Outcome {
            let build =
                arguments.contains("--uninstall") ? [] : ["--build-dir", binary.deletingLastPathComponent().path]
            return try run("/bin/bash", [Self.script.path, "--prefix", prefix] + build + arguments)
        }

        /// Runs a program with a private HOME and no inherited catalog or man settings.
        func run(_ program: String, _ arguments: [String], environment overrides: [String: String] = [:]) throws
            -> Outcome
        {
            var environment = ProcessInfo.processInfo.environment
            for name in ["BOOKSHELF_DB", "XDG_DATA_HOME", "MANPATH", "MANPAGER", "PAGER", "ENV", "BASH_ENV"] {
                environment[name] = nil
            }
            environment["HOME"] = directory.path("home")
            environment["PATH"] = "/usr/bin:/bin"
            environment["TERM"] = "dumb"
            environment.merge(overrides) { _, new in new }
            let output = directory.path("output-\(UUID().uuidString)"),
                errors = directory.path("errors-\(UUID().uuidString)")
            defer {
                try? FileManager.default.removeItem(atPath: output); try? FileManager.default.removeItem(atPath: errors)
            }
            let status = try ChildProcess.run(
                [program] + arguments, output: output, errors: errors, environment: environment)
            return Outcome(
                status: status, output: try String(contentsOfFile: output, encoding: .utf8),
                errors: try String(contentsOfFile: errors, encoding: .utf8))
        }

        /// A folder with a `swift` that writes down how it was called (into `calls`), exits with
        /// $STUB_STATUS, and names `products` as the build's bin path; and a PATH that finds it first.
        func stubbedSwift(products: String) throws -> (path: String, calls: String) {
            let stubs = directory.path("stubs-\(UUID().uuidString)"), calls = stubs + "/calls"
            try FileManager.default.createDirectory(atPath: stubs, withIntermediateDirectories: true)
            // Written by a shell of its own: an executable this process held open for writing
            // could be inherited by a child another test spawns, and then fail to run (ETXTBSY).
            let stub = """
                #!/bin/sh
                echo "$PWD: $*" >> \(shellQuoted(calls))
                case "$*" in *" --show-bin-path") echo \(shellQuoted(products)); exit 0 ;; esac
                exit "${STUB_STATUS:-0}"
                """
            let written = try run(
                "/bin/sh", ["-c", "printf '%s\\n' \"$1\" > \"$2\" && chmod 755 \"$2\"", "sh", stub, stubs + "/swift"])
            guard written.status == 0 else { throw ScriptFailure("cannot write the stub: \(written)") }
            return (stubs + ":/usr/bin:/bin", calls)
        }

        /// Programs with no Swift library, SQLite or ncurses in their dynamic section, as a static
        /// build's: /bin/true under their names, in a folder of their own.
        func selfContainedProducts() throws -> String {
            let products = directory.path("static-products")
            try FileManager.default.createDirectory(atPath: products, withIntermediateDirectories: true)
            for name in ["bookshelf", "bookshelf-demo"] {
                try FileManager.default.copyItem(atPath: "/bin/true", toPath: products + "/" + name)
            }
            return products
        }

        /// The C compiler the script finds the static archives with: the toolchain's clang, else cc.
        static func compiler() throws -> String {
            guard let found = ChildProcess.onPath("clang") ?? ChildProcess.onPath("cc") else {
                throw ScriptFailure("no C compiler (clang or cc) on PATH")
            }
            return found
        }

        /// The libraries an ELF file names in its dynamic section (NEEDED), as `readelf -d` lists them.
        func sharedLibraries(of path: String) throws -> [String] {
            let listed = try run("/usr/bin/readelf", ["--dynamic", path], environment: ["LC_ALL": "C"])
            guard listed.status == 0 else { throw ScriptFailure("readelf \(path): \(listed)") }
            return listed.output.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
                guard let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
                return String(line[line.index(after: open)..<close])
            }
        }

        struct ScriptFailure: Error, CustomStringConvertible {
            let description: String
            init(_ description: String) { self.description = description }
        }

        func makeFile(_ path: String, mode: Int = 0o644, text: String = "not bookshelf's\n") throws {
            let url = URL(fileURLWithPath: prefix).appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: false, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        }

        /// Every file and folder under the prefix, relative to it; folders end in "/".
        func tree() throws -> Set<String> {
            var found = Set<String>()
            let enumerator = try #require(FileManager.default.enumerator(atPath: prefix))
            for case let path as String in enumerator {
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: prefix + "/" + path, isDirectory: &isDirectory)
                found.insert(isDirectory.boolValue ? path + "/" : path)
            }
            return found
        }
    }
}
