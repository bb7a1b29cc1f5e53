import Foundation
import XCTest

/// The documentation that mirrors the code: the option reference is the commands' own --help,
/// the README stays a front door, and every relative link in the docs leads to a file.
final class DocsTests: XCTestCase {
    func testOptionReferenceIsTheCommandsHelp() throws {
        let script = Fixtures.repo.appendingPathComponent("Scripts/gen_options_doc.sh").path
        let run = try runProcess("/bin/bash", [script, "--check"], environment: ["BIN": Fixtures.binary])
        XCTAssertEqual(run.status, 0, "docs/options.md is out of date: Scripts/gen_options_doc.sh > docs/options.md\n\(run.stderr)")
        // Every subcommand `sightline --help` lists, in whichever group, has its section.
        let help = try runProcess(Fixtures.binary, ["--help"]).stdoutText
        let reference = try String(contentsOf: Fixtures.repo.appendingPathComponent("docs/options.md"), encoding: .utf8)
        var inSubcommands = false, listed: [String] = []
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") && !line.isEmpty { inSubcommands = line.hasSuffix("SUBCOMMANDS:") }
            else if inSubcommands, line.hasPrefix("  "), !line.hasPrefix("   "), let name = line.split(separator: " ").first, name.first?.isLowercase == true {
                listed.append(String(name))
            }
        }
        XCTAssertGreaterThanOrEqual(listed.count, 16, help)
        for name in listed { XCTAssertTrue(reference.contains("## `sightline \(name)`"), "docs/options.md has no section for \(name)") }
    }

    func testTheReadmeIsAFrontDoorAndEveryLinkLeadsToAFile() throws {
        let readme = try String(contentsOf: Fixtures.repo.appendingPathComponent("README.md"), encoding: .utf8)
        XCTAssertLessThanOrEqual(readme.split(separator: "\n", omittingEmptySubsequences: false).count, 400)
        let docs = Fixtures.repo.appendingPathComponent("docs")
        let pages = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }
            .map { docs.appendingPathComponent($0) } + [Fixtures.repo.appendingPathComponent("README.md"),
                                                        Fixtures.repo.appendingPathComponent("ARCHITECTURE.md")]
        let link = try NSRegularExpression(pattern: #"\]\(([^)#\s]+)(#[^)\s]*)?\)"#)
        var broken: [String] = []
        for page in pages {
            let text = try String(contentsOf: page, encoding: .utf8)
            for match in link.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let target = String(text[Range(match.range(at: 1), in: text)!])
                if target.contains("://") || target.hasPrefix("mailto:") { continue }
                let resolved = page.deletingLastPathComponent().appendingPathComponent(target).standardizedFileURL.path
                if !FileManager.default.fileExists(atPath: resolved) { broken.append("\(page.lastPathComponent): \(target)") }
            }
        }
        XCTAssertEqual(broken, [])
    }
}
