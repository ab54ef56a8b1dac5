import ArgumentParser
import CarePlan
import CarePlanStore
import CommandOptions
import Foundation
import LineOutput

struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List the change log: every change with its revision, device and time.",
        discussion: "With --follow it keeps running and prints changes as any process commits them.")

    @OptionGroup var options: StoreOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: "Only changes after this revision.")
    var after = 0

    @Option(help: "Only changes of this activity.")
    var activity: String?

    @Option(help: "At most this many.")
    var limit: Int?

    @Flag(help: "Keep printing new changes until interrupted.")
    var follow = false

    @Flag(help: "Print one JSON object per change and line.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let store = try await options.open()
            var last = after
            for change in try await store.history(after: after, activityID: activity, limit: limit) {
                try show(change)
                last = change.revision
            }
            guard follow else { return }
            let feed = StoreChangeFeed(store: store, logger: logging.bootstrap("caresync.history"))
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await feed.run() }
                for await change in feed.changes(after: last) where activity == nil || change.activityID == activity {
                    try show(change)
                }
            }
        }
    }

    private func show(_ change: StoreChange) throws {
        if json {
            try emitJSON(change)
        } else {
            emit(HistoryLine(change).description)
        }
    }
}

/// One change as a line of text.
struct HistoryLine: CustomStringConvertible {
    let change: StoreChange

    init(_ change: StoreChange) {
        self.change = change
    }

    var description: String {
        let what: String
        switch change.kind {
        case .planConfigured: what = "plan configured"
        case .activityAdded: what = "added \(change.activityID ?? "") from \(change.effectiveFrom.map(\.description) ?? "")"
        case .activityUpdated:
            what = "updated \(change.activityID ?? "") to version \(change.version ?? 0) from \(change.effectiveFrom.map(\.description) ?? "")"
        case .activityEnded: what = "ended \(change.activityID ?? "") from \(change.effectiveFrom.map(\.description) ?? "")"
        case .outcomeRecorded, .outcomeSuperseded:
            let values = change.outcome?.values.map(\.formatted).joined(separator: "/") ?? ""
            what = "\(change.event.map(\.description) ?? "") \(change.outcome?.state.rawValue ?? "")"
                + (values.isEmpty ? "" : " \(values)") + (change.kind == .outcomeSuperseded ? " (superseded)" : "")
        case .contactSaved: what = "contact \(change.contactID ?? "") saved"
        case .contactRemoved: what = "contact \(change.contactID ?? "") removed"
        case .devicePaired: what = "device \(change.pairedDevice ?? "") paired"
        case .deviceRevoked: what = "device \(change.pairedDevice ?? "") revoked"
        case .reportShared:
            let share = change.share
            let to = switch share?.recipient {
            case .contact(let id): "contact \(id) <\(share?.address ?? "")>"
            case .device(let id): "device \(share?.address ?? "") (\(id.prefix(16)))"
            case nil: "?"
            }
            what = "report of \(share.map { "\($0.days.lowerBound)–\($0.days.upperBound)" } ?? "?") shared with \(to)"
        }
        return "\(change.revision)  \(ISO8601.string(from: change.committedAt))  \(change.device)  \(what)"
    }
}
