import FakeFrontmail
import Foundation

extension CertifyJudge {
    /// The idempotency properties: a key on every request, its shape, one key per send and none
    /// shared, the same body on every attempt, one effect per send (the functions both rooms
    /// share are `ContractProperty`'s).
    static func judgeIdempotency(
        _ property: ContractProperty, _ sends: [(key: Int, value: [ServerView.Attempt])], view: ServerView,
        planned: Int
    ) -> CertifyVerdict {
        switch property {
        case .keyPresent:
            let broken = sends.filter { ContractProperty.missesKey($0.value.map(\.key)) }.map(\.key)
            return broken.isEmpty
                ? .pass("\(view.requests) requests, each with a key")
                : .fail("\(broken.count) sends made a request without an Idempotency-Key", sends: broken)
        case .keyV4:
            let broken = sends.filter { $0.value.contains { !ContractProperty.isVersion4($0.key) } }.map(\.key)
            let example = sends.first { $0.value.contains { !ContractProperty.isVersion4($0.key) } }?.value.first?.key
            return broken.isEmpty
                ? .pass("every key is a lowercase version-4 UUID")
                : .fail(
                    "\(broken.count) sends carried no key or one that is not a lowercase UUID v4"
                        + (example.map { " ('\($0.prefix(40))')" } ?? ""), sends: broken)
        case .sameKey where !sends.contains(where: { $0.value.count > 1 }),
            .sameBody where !sends.contains(where: { $0.value.count > 1 }):
            // A client that claims retries and made none shows nothing about what it resends.
            return .fail(
                "no send was retried: nothing shows that a retry carries the same \(property == .sameKey ? "key" : "body")"
            )
        case .sameKey:
            let broken = sends.filter { ContractProperty.breaksSameKey($0.value.map(\.key)) }.map(\.key)
            return broken.isEmpty
                ? .pass("one key per send on \(view.requests) requests")
                : .fail("\(broken.count) sends were retried without one key on every attempt", sends: broken)
        case .distinctKeys:
            return judgeDistinctKeys(sends, planned: planned)
        case .sameBody:
            let broken = sends.filter { ContractProperty.changesBody($0.value.map(\.record)) }.map(\.key)
            return broken.isEmpty
                ? .pass("every send's attempts carried the same bytes")
                : .fail("\(broken.count) sends changed their body between attempts", sends: broken)
        case .oneEffect:
            let broken = sends.filter { ContractProperty.committedTwice($0.value.map(\.record)) }.map(\.key)
            return broken.isEmpty
                ? .pass("no send was committed twice")
                : .fail("\(broken.count) sends were committed twice or more (duplicate emails)", sends: broken)
        default:
            // Only the cases above are dispatched here (CertifyJudge.judgeProperty).
            return CertifyVerdict(outcome: .notApplicable, detail: "\(property.rawValue) is not judged here")
        }
    }

    /// No two sends share a key, and every request carries one.
    private static func judgeDistinctKeys(_ sends: [(key: Int, value: [ServerView.Attempt])], planned: Int)
        -> CertifyVerdict
    {
        let keys = sends.map { (send: $0.key, keys: $0.value.map(\.key)) }
        let (owners, shared) = ContractProperty.keyOwners(keys)
        let broken = Set(
            keys.filter { ContractProperty.missesKey($0.keys) || $0.keys.contains { $0.map(shared.contains) ?? false } }
                .map(\.send))
        return broken.isEmpty
            ? .pass("\(planned) sends, \(owners.count) keys")
            : .fail("\(broken.count) sends shared a key with another send or carried none", sends: broken.sorted())
    }
}
