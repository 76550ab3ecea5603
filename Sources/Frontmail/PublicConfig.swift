import Foundation

/// `GET /v1/public-config`: what an app may know without a key (camelCase on the wire).
struct PublicConfig: Sendable, Hashable {
    var mobileSiteKey: String?
    var mobileBaseURL: URL?

    static func parse(_ response: FrontmailHTTPResponse) throws(FrontmailError) -> PublicConfig {
        guard case .object(let turnstile)? = (try? JSONReader.parse(response.body))?["turnstile"] else {
            throw .client(.invalidResponse, "The public config has no turnstile object (status \(response.status)).")
        }
        let siteKey = turnstile["mobileSiteKey"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let baseURL = turnstile["mobileBaseUrl"]?.stringValue.flatMap { $0.isEmpty ? nil : URL(string: $0) }
        return PublicConfig(mobileSiteKey: siteKey, mobileBaseURL: baseURL)
    }
}

extension Frontmail {
    /// One request, no retries (as the other Frontmail SDKs do it).
    func fetchPublicConfig() async throws(FrontmailError) -> PublicConfig {
        var headers = FrontmailHTTPHeaders()
        headers.add(name: "X-Frontmail-Client", value: Self.clientHeaderValue)
        let request = FrontmailHTTPRequest(
            method: "GET", url: endpoint("/v1/public-config"), headers: headers, body: nil, timeout: timeout)
        let response = try await execute(request, operation: .publicConfig, key: nil, retry: .disabled)
        return try PublicConfig.parse(response)
    }
}

/// The public config per normalised base URL, for the life of the process. Concurrent callers
/// share one request; failures are not cached.
///
/// `@unchecked Sendable`: `entries` is only touched under its lock.
final class PublicConfigCache: @unchecked Sendable {
    static let shared = PublicConfigCache()

    private enum Entry {
        case loading(id: UInt64, Task<PublicConfig, any Error>)
        case loaded(PublicConfig)
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Lock(State())

    func config(for client: Frontmail) async throws -> PublicConfig {
        let key = client.baseURLString
        enum Lookup {
            case cached(PublicConfig)
            case pending(id: UInt64, Task<PublicConfig, any Error>)
        }
        let lookup = state.withLock { state -> Lookup in
            switch state.entries[key] {
            case .loaded(let config)?:
                return .cached(config)
            case .loading(let id, let task)?:
                return .pending(id: id, task)
            case nil:
                state.nextID += 1
                // Shared by every caller that arrives while it runs, so no single caller owns it.
                let task = Task<PublicConfig, any Error> { try await client.fetchPublicConfig() }
                state.entries[key] = .loading(id: state.nextID, task)
                return .pending(id: state.nextID, task)
            }
        }
        switch lookup {
        case .cached(let config):
            return config
        case .pending(let id, let task):
            do {
                let config = try await task.value
                finish(key: key, id: id, with: config)
                return config
            } catch {
                finish(key: key, id: id, with: nil)
                throw error
            }
        }
    }

    private func finish(key: String, id: UInt64, with config: PublicConfig?) {
        state.withLock { state in
            guard case .loading(let current, _)? = state.entries[key], current == id else { return }
            state.entries[key] = config.map { .loaded($0) }
        }
    }
}
