import FakeFrontmail
import Foundation
import Frontmail

extension TuneEnvironment: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer([
            "name", "description", "rules", "capacity", "metastability", "load", "map", "instances", "weight",
        ])
        name = try container.decode(String.self, forKey: AnyKey("name"))
        description = try container.decodeIfPresent(String.self, forKey: AnyKey("description")) ?? ""
        rules = try container.decodeIfPresent([FaultRule].self, forKey: AnyKey("rules")) ?? []
        capacity = try container.decodeIfPresent(CapacityModel.self, forKey: AnyKey("capacity"))
        metastability = try container.decodeIfPresent(MetastabilitySettings.self, forKey: AnyKey("metastability"))
        load = try container.decodeIfPresent(LoadSettings.self, forKey: AnyKey("load"))
        map = try container.decodeIfPresent(MapPoint.self, forKey: AnyKey("map"))
        instances = try container.integer(Int.self, AnyKey("instances"))
        weight = try container.decodeIfPresent(Double.self, forKey: AnyKey("weight"))
    }

    func validate(path: String) throws(InputError) {
        try Scenario.checkName(name, path + ".name")
        if let instances { try InputError.check(instances, in: TuneFile.clientCounts, path + ".instances") }
        if let weight, !weight.isFinite || !Self.weights.contains(weight) {
            throw InputError(
                path: path + ".weight",
                reason: "must be a number from 0.000001 to 1000000 (how often the incident happens)")
        }
        if let map {
            guard map.load.isFinite, map.load > 0, map.load <= 10 else {
                throw InputError(path: path + ".map.load", reason: "must be more than 0 and at most 10 (of capacity)")
            }
            try InputError.check(map.drop, path + ".map.drop", positive: true)
            guard metastability != nil else {
                throw InputError(path: path + ".map", reason: "a map point is judged by metastability: give it too")
            }
        }
        try FaultPlan(rules: rules, capacity: capacity).validate(path: path)
    }
}

extension TuneEnvironment.MapPoint: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(["load", "drop"])
        load = try container.decode(Double.self, forKey: AnyKey("load"))
        drop = try container.decode(TimeSpan.self, forKey: AnyKey("drop"))
    }
}

extension TuneQuick: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(["seeds", "grid", "environments", "duration", "clients"])
        seeds = try container.integer(Int.self, AnyKey("seeds"))
        grid = try container.decodeIfPresent(PolicyGrid.self, forKey: AnyKey("grid"))
        environments = try container.decodeIfPresent([String].self, forKey: AnyKey("environments"))
        duration = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("duration"))
        clients = try container.decodeIfPresent(ClientScales.self, forKey: AnyKey("clients"))?.counts
    }

    func validate(path: String, environments known: Set<String>, defaultPolicy: PolicyPoint) throws(InputError) {
        if let seeds { try InputError.check(seeds, in: 1...100, path + ".seeds") }
        try grid?.validate(path: path + ".grid", defaultPolicy: defaultPolicy)
        if let duration { try InputError.check(duration, path + ".duration", positive: true) }
        if let clients { try TuneFile.checkScales(clients, path: path + ".clients") }
        for (index, name) in (environments ?? []).enumerated() where !known.contains(name) {
            throw InputError(
                path: "\(path).environments[\(index)]",
                reason: "no environment named '\(name)' (known: \(known.sorted().joined(separator: ", ")))")
        }
        if environments?.isEmpty == true {
            throw InputError(path: path + ".environments", reason: "name at least one (or leave it out for all)")
        }
    }
}
