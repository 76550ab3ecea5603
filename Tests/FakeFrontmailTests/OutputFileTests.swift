import FakeFrontmail
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("outputs: written whole through a rename, never over a device, a FIFO or an input")
struct OutputFileTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("a device node, a FIFO and a folder are refused and stay what they were")
    func nonRegularRefused() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("fifo")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        for target in [URL(fileURLWithPath: "/dev/null"), fifo, folder] {
            #expect(throws: OutputFile.Refused.self) { try OutputFile.write(Data("x".utf8), to: target) }
        }
        #expect(OutputFile.nonRegularKind(at: "/dev/null") == "a device")
        #expect(OutputFile.nonRegularKind(at: fifo.path) == "a FIFO")
        // Nothing left behind in the folder but the FIFO.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["fifo"])
    }

    @Test("a writer that fails leaves the old file whole and no temporary file; a link is written through")
    func wholeOrOld() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("ledger.csv")
        try OutputFile.write(Data("old\n".utf8), to: file)
        struct Broken: Error {}
        #expect(throws: Broken.self) {
            try OutputFile.write(to: file) { handle in
                try handle.write(contentsOf: Data("half of a new".utf8))
                throw Broken()
            }
        }
        #expect(try String(contentsOf: file, encoding: .utf8) == "old\n")
        let link = folder.appendingPathComponent("link.csv")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        try OutputFile.write(Data("new\n".utf8), to: link)
        #expect(try String(contentsOf: file, encoding: .utf8) == "new\n")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == file.path)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["ledger.csv", "link.csv"])
    }

    @Test("an output that is an input is found through a link and another spelling; a new file is none")
    func clash() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("plan.json")
        try Data("{}".utf8).write(to: input)
        let link = folder.appendingPathComponent("alias.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: input)
        let spelled = folder.path + "/./plan.json"
        #expect(OutputFile.clash(outputs: [spelled], inputs: [input.path])?.input == input.path)
        #expect(OutputFile.clash(outputs: [link.path], inputs: [input.path])?.output == link.path)
        #expect(OutputFile.clash(outputs: [folder.appendingPathComponent("new.csv").path], inputs: [input.path]) == nil)
        #expect(OutputFile.clash(outputs: [input.path], inputs: []) == nil)
    }

    @Test("an input that is missing, a folder or unreadable is said in those words, not Foundation's codes")
    func inputWording() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func reason(_ path: String) -> String {
            do {
                _ = try InputFileError.read(path)
                return "read"
            } catch {
                return error.description
            }
        }
        #expect(reason(folder.appendingPathComponent("missing.json").path).hasSuffix("missing.json: no such file"))
        #expect(reason(folder.path).hasSuffix(": is a folder, not a file"))
        let file = folder.appendingPathComponent("ok.json")
        try Data("{}".utf8).write(to: file)
        #expect(reason(file.path) == "read")
        #expect(!reason(folder.appendingPathComponent("missing.json").path).contains("Code="))
    }
}
