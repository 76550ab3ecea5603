import Foundation
import Testing

@testable import FrontmailBenchCLI
@testable import LoadKit

/// The Kubernetes manifests parse, agree with each other and with the CLI: every container's
/// arguments are ones `frontmail-bench` accepts, every scenario they name exists in the image and
/// can be sharded that way, shard counts, ports, labels and the volume line up.
@Suite("deploy/kubernetes: manifests the CLI accepts")
struct ManifestTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let folder = root.appendingPathComponent("deploy/kubernetes")

    static func documents() throws -> [(file: String, document: YAMLNode)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".yaml") }
            .sorted()
        #expect(
            names == ["merge-job.yaml", "results-pvc.yaml", "serve.yaml", "shards-job.yaml", "socket-shards-job.yaml"])
        var all: [(String, YAMLNode)] = []
        for name in names {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            for document in try YAMLNode.parseDocuments(text, file: name) { all.append((name, document)) }
        }
        return all
    }

    static func container(_ document: YAMLNode) -> YAMLNode? {
        let spec = document["spec"]?["template"]?["spec"] ?? document["spec"]?["jobTemplate"]?["spec"]
        return spec?["containers"]?.items.first
    }

    static func args(_ document: YAMLNode) -> [String] { container(document)?["args"]?.items.compactMap(\.text) ?? [] }

    static func value(_ args: [String], _ option: String) -> String? {
        args.firstIndex(of: option).flatMap { args.indices.contains($0 + 1) ? args[$0 + 1] : nil }
    }

    @Test("every document is well-formed and names its kind; the parser rejects what is not")
    func wellFormed() throws {
        let documents = try Self.documents()
        #expect(documents.count == 6)
        for (file, document) in documents {
            #expect(document["apiVersion"]?.text != nil, "\(file)")
            #expect(document["metadata"]?["name"]?.text?.hasPrefix("frontmail-") == true, "\(file)")
        }
        #expect(throws: YAMLNode.ParseError.self) { try YAMLNode.parseDocuments("a:\n\tb: 1\n", file: "t") }
        #expect(throws: YAMLNode.ParseError.self) { try YAMLNode.parseDocuments("a: 1\n   b: 2\n", file: "t") }
        #expect(throws: YAMLNode.ParseError.self) { try YAMLNode.parseDocuments("a: [\"x\", \n", file: "t") }
    }

    @Test("each Indexed Job runs one shard per pod: completions = parallelism = N of --shard env/N")
    func indexedJobs() throws {
        let jobs = try Self.documents().filter { $0.document["kind"]?.text == "Job" }
        #expect(jobs.count == 3)
        for (file, job) in jobs {
            let args = Self.args(job)
            let spec = job["spec"]
            #expect(spec?["template"]?["spec"]?["restartPolicy"]?.text == "Never", "\(file)")
            guard args.first == "run" else {
                #expect(args.first == "merge", "\(file)")
                continue
            }
            #expect(spec?["completionMode"]?.text == "Indexed", "\(file)")
            let shard = Self.value(args, "--shard") ?? ""
            #expect(shard.hasPrefix("env/"), "\(file)")
            let count = String(shard.dropFirst(4))
            #expect(spec?["completions"]?.text == count && spec?["parallelism"]?.text == count, "\(file)")
        }
    }

    @Test("the image carries what certify's committed gate runs: the cases' files, the SDK's client, curl")
    func imageCertifies() throws {
        let dockerfile = try String(contentsOf: Self.root.appendingPathComponent("Dockerfile"), encoding: .utf8)
        #expect(dockerfile.contains("COPY certify certify"))
        #expect(dockerfile.contains("--product frontmail-certify-client"))
        #expect(dockerfile.contains("/frontmail-certify-client /usr/local/bin/"))
        #expect(dockerfile.contains("ENV FRONTMAIL_BIN=/usr/local/bin"))
        #expect(dockerfile.contains(" curl "))
        let manifest = try String(
            contentsOf: Self.root.appendingPathComponent("certify/clients.json"), encoding: .utf8)
        #expect(manifest.contains("$FRONTMAIL_BIN/frontmail-certify-client"))
    }

    @Test("every container's arguments are accepted by the command they name, scenarios included")
    func argumentsMatchTheCLI() throws {
        let documents = try Self.documents()
        let dockerfile = try String(contentsOf: Self.root.appendingPathComponent("Dockerfile"), encoding: .utf8)
        var checked = 0
        for (file, document) in documents {
            let args = Self.args(document)
            guard let command = args.first else { continue }
            let rest = Array(args.dropFirst())
            checked += 1
            switch command {
            case "run":
                let parsed = try Arguments(rest, spec: RunCommand.spec)
                let options = try ShardOptions(parsed, environment: ["JOB_COMPLETION_INDEX": "0"])
                let shard = try #require(options.shard, "\(file)")
                let path = try #require(parsed.positionals.first)
                // The image holds the scenario (the Dockerfile copies its folder) and it can be sharded so.
                let folder = path.split(separator: "/").dropLast().joined(separator: "/")
                #expect(dockerfile.contains("COPY \(folder) "), "\(file): \(folder) is not in the image")
                let scenario = try Scenario.load(file: Self.root.appendingPathComponent(path).path)
                #expect(
                    scenario.shardingProblem(shard, sharedServer: options.server != nil) == nil,
                    "\(file): \(scenario.shardingProblem(shard, sharedServer: options.server != nil) ?? "")")
                #expect(parsed.value("out") == "/results/parts", "\(file)")
            case "merge":
                let parsed = try Arguments(rest, spec: MergeCommand.spec)
                #expect(parsed.positionals == ["/results/parts"] && parsed.value("out") == "/results/merged", "\(file)")
            case "serve":
                let parsed = try Arguments(rest, spec: ServeCommand.spec)
                let path = try #require(parsed.value("scenario"))
                #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path), "\(file)")
                #expect(parsed.flag("expose") && parsed.value("host") == "0.0.0.0", "\(file)")
                #expect(parsed.value("part-out") == "/results/parts", "\(file)")
            default:
                Issue.record("\(file): unknown command \(command)")
            }
        }
        #expect(checked == 4)
    }

    @Test("the socket shards reach the server's Service and port, with the server's scenario and shard count")
    func sharedServerLinesUp() throws {
        let documents = try Self.documents()
        let serve = try #require(documents.first { $0.document["kind"]?.text == "Deployment" }?.document)
        let service = try #require(documents.first { $0.document["kind"]?.text == "Service" }?.document)
        let shards = try #require(documents.first { $0.file == "socket-shards-job.yaml" }?.document)
        let serveArgs = Self.args(serve)
        let shardArgs = Self.args(shards)
        let url = try #require(URL(string: Self.value(shardArgs, "--server") ?? ""))
        #expect(url.host == service["metadata"]?["name"]?.text)
        let servicePort = service["spec"]?["ports"]?.items.first
        #expect(url.port.map(String.init) == servicePort?["port"]?.text)
        #expect(Self.value(serveArgs, "--port") == Self.container(serve)?["ports"]?.items.first?["containerPort"]?.text)
        #expect(servicePort?["targetPort"]?.text == Self.container(serve)?["ports"]?.items.first?["name"]?.text)
        #expect(Self.value(serveArgs, "--scenario") == shardArgs[1])
        #expect(Self.value(serveArgs, "--shards") == shards["spec"]?["completions"]?.text)
        let selector = service["spec"]?["selector"]
        let labels = serve["spec"]?["template"]?["metadata"]?["labels"]
        for key in ["app.kubernetes.io/name", "app.kubernetes.io/component"] {
            #expect(selector?[key]?.text != nil && selector?[key]?.text == labels?[key]?.text, "\(key)")
        }
    }

    @Test("every pod mounts the results claim at /results")
    func volumes() throws {
        let documents = try Self.documents()
        let claim = documents.first { $0.document["kind"]?.text == "PersistentVolumeClaim" }?.document
        let name = try #require(claim?["metadata"]?["name"]?.text)
        for (file, document) in documents where Self.container(document) != nil {
            let spec = document["spec"]?["template"]?["spec"]
            let volume = spec?["volumes"]?.items.first
            #expect(volume?["persistentVolumeClaim"]?["claimName"]?.text == name, "\(file)")
            let mount = Self.container(document)?["volumeMounts"]?.items.first
            #expect(mount?["mountPath"]?.text == "/results" && mount?["name"]?.text == volume?["name"]?.text, "\(file)")
        }
    }
}

/// The YAML the manifests are written in (block mappings and sequences, plain or quoted scalars,
/// flow sequences of strings, `#` comments, `---` between documents): enough to check them, and
/// strict: a tab, an indentation that fits no parent or an unreadable flow sequence is an error.
enum YAMLNode: Sendable {
    case scalar(String)
    case list([YAMLNode])
    case map([(key: String, value: YAMLNode)])

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    var text: String? {
        if case .scalar(let value) = self { return value }
        return nil
    }

    var items: [YAMLNode] {
        if case .list(let items) = self { return items }
        return []
    }

    subscript(key: String) -> YAMLNode? {
        if case .map(let pairs) = self { return pairs.first { $0.key == key }?.value }
        return nil
    }

    private struct Line {
        var indent: Int
        var content: String
        var number: Int
    }

    static func parseDocuments(_ text: String, file: String) throws -> [YAMLNode] {
        var documents: [[Line]] = [[]]
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            guard !raw.contains("\t") else { throw ParseError(description: "\(file):\(number): a tab") }
            var content = String(raw)
            if let hash = content.range(of: " #") { content = String(content[..<hash.lowerBound]) }
            if content.hasPrefix("#") { content = "" }
            let trimmed = content.drop { $0 == " " }
            if trimmed.isEmpty { continue }
            if trimmed == "---" {
                documents.append([])
                continue
            }
            let indent = content.count - trimmed.count
            documents[documents.count - 1].append(
                Line(indent: indent, content: String(trimmed).trimmingCharacters(in: .whitespaces), number: number))
        }
        return try documents.filter { !$0.isEmpty }.map { lines in
            var index = 0
            let node = try block(lines, &index, indent: lines[0].indent, file: file)
            if index < lines.count {
                throw ParseError(description: "\(file):\(lines[index].number): indentation fits no parent")
            }
            return node
        }
    }

    private static func block(_ lines: [Line], _ index: inout Int, indent: Int, file: String) throws -> YAMLNode {
        var lines = lines
        if lines[index].content.hasPrefix("- ") || lines[index].content == "-" {
            var items: [YAMLNode] = []
            while index < lines.count, lines[index].indent == indent, lines[index].content.hasPrefix("-") {
                let rest = String(lines[index].content.dropFirst()).trimmingCharacters(in: .whitespaces)
                if rest.isEmpty {
                    index += 1
                    items.append(try block(lines, &index, indent: lines[index].indent, file: file))
                } else if rest.contains(": ") || rest.hasSuffix(":") {
                    // `- key: value` opens a mapping indented by the dash.
                    lines[index] = Line(indent: indent + 2, content: rest, number: lines[index].number)
                    items.append(try block(lines, &index, indent: indent + 2, file: file))
                } else {
                    items.append(try scalar(rest, line: lines[index].number, file: file))
                    index += 1
                }
            }
            return .list(items)
        }
        var pairs: [(key: String, value: YAMLNode)] = []
        while index < lines.count, lines[index].indent == indent {
            let line = lines[index]
            let key: String
            let rest: String
            if let separator = line.content.range(of: ": ") {
                key = String(line.content[..<separator.lowerBound])
                rest = String(line.content[separator.upperBound...]).trimmingCharacters(in: .whitespaces)
            } else if line.content.hasSuffix(":") {
                key = String(line.content.dropLast())
                rest = ""
            } else {
                throw ParseError(description: "\(file):\(line.number): expected key: value, found '\(line.content)'")
            }
            if pairs.contains(where: { $0.key == key }) {
                throw ParseError(description: "\(file):\(line.number): '\(key)' twice")
            }
            index += 1
            if rest.isEmpty {
                guard index < lines.count,
                    lines[index].indent > indent
                        || (lines[index].indent == indent && lines[index].content.hasPrefix("-"))
                else { throw ParseError(description: "\(file):\(line.number): '\(key)' has no value") }
                pairs.append((key, try block(lines, &index, indent: lines[index].indent, file: file)))
            } else {
                pairs.append((key, try scalar(rest, line: line.number, file: file)))
            }
        }
        return .map(pairs)
    }

    private static func scalar(_ text: String, line: Int, file: String) throws -> YAMLNode {
        if text.hasPrefix("[") {
            guard let strings = try? JSONDecoder().decode([String].self, from: Data(text.utf8)) else {
                throw ParseError(description: "\(file):\(line): a flow sequence that is not a list of quoted strings")
            }
            return .list(strings.map(YAMLNode.scalar))
        }
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
            return .scalar(String(text.dropFirst().dropLast()))
        }
        return .scalar(text)
    }
}
