/// How long any test waits for what should happen soon: one deadline for the whole suite.
/// The test run shares two cores with dozens of primaries, watches and browsers at its peak,
/// and an in-process node or server gets only this process's share (CI saw a first context
/// take over 20 s). A wait ends as soon as its condition holds, so this costs a passing
/// test nothing; one that fails says what it waited for and what it saw.
public let patience: Duration = .seconds(60)
