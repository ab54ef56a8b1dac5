import ArgumentParser
import CareFHIR
import CarePlan
import CarePlanStore
import PrivateFiles
import Foundation

/// Options every command that touches the store takes.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store file.", valueName: "path"))
    var store: String?

    @Option(name: .long, help: "The name this command records changes under.")
    var device = "caresync-cli"

    /// The store path: --store, then $CARESYNC_STORE, then the XDG data directory.
    var path: String {
        if let store { return store }
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["CARESYNC_STORE"], !path.isEmpty { return path }
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() + "/.local/share")
        return dataHome + "/caresync/store.sqlite"
    }

    /// Where the primary of the store at `path` keeps its identity, its web certificate and
    /// its health record sign-in: beside the store.
    static func identityDirectory(ofStoreAt path: String) -> String { path + ".identity" }

    /// The primary's health record sign-in, for the store at ``path``.
    var vault: TokenVault { TokenVault(directory: Self.identityDirectory(ofStoreAt: path)) }

    /// Moves `--store`/`--device` given before the command to its end, where the
    /// command's parser reads them: `--store F plan load P` becomes `plan load P --store F`.
    static func movingLeadingOptions(_ arguments: [String]) -> [String] {
        var rest = arguments[...]
        var moved: [String] = []
        while let first = rest.first, ["--store", "--device"].contains(where: { first == $0 || first.hasPrefix($0 + "=") }) {
            moved.append(rest.removeFirst())
            if !first.contains("="), let value = rest.first {
                moved.append(value)
                rest.removeFirst()
            }
        }
        return Array(rest) + moved
    }

    /// Opens the store, which must exist: a misspelt path does not make a new one.
    func open() async throws -> CarePlanStore {
        guard FileManager.default.fileExists(atPath: path) else { throw StoreNotFound(path: path) }
        return try await CarePlanStore(path: path)
    }

    /// Opens the store, making it and its directory if there is none: for the commands
    /// that start a plan (`init`, `plan load`, `fhir import`).
    func openOrCreate() async throws -> CarePlanStore {
        // Directories it makes are the owner's alone (0700); existing ones are left as they are.
        try PrivateFiles.makeDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path, own: false)
        return try await CarePlanStore(path: path)
    }
}

/// No store at the path a command was given (--store, $CARESYNC_STORE or the default).
struct StoreNotFound: Error, CustomStringConvertible {
    var path: String
    var description: String { "no store at \(path)" }
}

/// Parses `HH:MM` for options such as `--breakfast`.
extension TimeOfDay: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(argument)
    }
}

/// Parses `YYYY-MM-DD` for options such as `--date`.
extension CalendarDay: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(argument)
    }
}

extension CarePlanStore {
    /// Today in the plan's time zone.
    func today() async throws -> CalendarDay {
        CalendarDay.containing(Date(), in: try await plan.timeZone())
    }

    /// The plan's information and time zone; fails if no plan is configured yet.
    func configuredPlan() async throws -> (info: PlanInfo, timeZone: TimeZone) {
        let info = try await plan.info()
        guard let zone = info.timeZone else { throw CarePlanStoreError.planNotConfigured }
        return (info, zone)
    }
}

/// The seconds `text` says: `90s`, `5m`, `1h`, `7d` or plain seconds.
func seconds(of text: String) -> TimeInterval? {
    let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
    if let unit = text.last.flatMap({ units[$0] }) { return Double(text.dropLast()).map { $0 * unit } }
    return Double(text)
}
